import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { blockedAddress } from './address-classification.js';
import { type HostResolver, type ResolvedAddress, systemHostResolver } from './host-resolver.js';

/** How one delivery attempt went. */
export type DeliveryAttempt =
  | { readonly kind: 'delivered'; readonly status: number }
  /** Worth another attempt later: 5xx, 408, 429, no answer in time, a network error, a name that does not resolve. */
  | { readonly kind: 'retry'; readonly reason: string }
  /** Another attempt cannot succeed: the endpoint refused the delivery (other 4xx), a redirect, or an address not allowed. */
  | { readonly kind: 'refused'; readonly reason: string };

export interface WebhookRequest {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface WebhookSenderOptions {
  readonly timeoutMs: number;
  /** Loopback, private, link-local, unique-local, multicast, ... addresses are refused unless allowed (a webhook must not reach into the platform's own network). */
  readonly allowPrivateAddresses: boolean;
  /** Resolves the URL's host name; the operating system's resolver unless another is given (a split-horizon or test resolver). */
  readonly resolveHost?: HostResolver;
}

/**
 * POSTs one webhook delivery: the host name is resolved once, every address it resolves to is vetted
 * (unless private addresses are allowed), and the connection goes to a vetted address only (a lookup
 * that answers with them, so a name re-resolving to an internal address in between, DNS rebinding,
 * is never connected to), with the Host header and the TLS server name still the URL's host. A fresh
 * connection per delivery (none pooled from an earlier resolution), no redirects followed, a hard
 * time limit.
 */
export class WebhookSender {
  private readonly resolveHost: HostResolver;

  constructor(private readonly options: WebhookSenderOptions) {
    this.resolveHost = options.resolveHost ?? systemHostResolver;
  }

  async send(request: WebhookRequest): Promise<DeliveryAttempt> {
    const url = new URL(request.url);
    // A URL's IPv6 host is bracketed; its IPv4 host is already normalised (0x7f.1 is 127.0.0.1).
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    let addresses: readonly ResolvedAddress[];
    try {
      addresses = await this.addressesOf(host);
    } catch (error) {
      return { kind: 'retry', reason: `cannot resolve ${host}: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (addresses.length === 0) return { kind: 'retry', reason: `${host} resolves to no address` };
    if (!this.options.allowPrivateAddresses) {
      for (const { address } of addresses) {
        const blocked = blockedAddress(address);
        if (blocked !== undefined) return { kind: 'refused', reason: `${host} resolves to ${address} (${blocked.kind}, ${blocked.range}); only public addresses are called` };
      }
    }
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    let status: number;
    try {
      status = await this.post(url, host, addresses, request, deadline);
    } catch (error) {
      // The request reports an AbortError whatever the cause; the signal knows it was the deadline.
      if (deadline.aborted) return { kind: 'retry', reason: `no answer within ${this.options.timeoutMs} ms` };
      return { kind: 'retry', reason: `request failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (status >= 200 && status < 300) return { kind: 'delivered', status };
    if (status >= 500 || status === 408 || status === 429) return { kind: 'retry', reason: `answered ${status}` };
    return { kind: 'refused', reason: status >= 300 && status < 400 ? `answered a redirect (${status}); redirects are not followed` : `answered ${status}` };
  }

  private async addressesOf(host: string): Promise<readonly ResolvedAddress[]> {
    const family = isIP(host);
    if (family === 4 || family === 6) return [{ address: host, family }];
    return this.resolveHost(host);
  }

  /** The status of the answer to a POST sent to one of `addresses` (every one vetted), never following a redirect (node:http does not). */
  private post(url: URL, host: string, addresses: readonly ResolvedAddress[], request: WebhookRequest, deadline: AbortSignal): Promise<number> {
    const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
      if (lookupOptions.all === true) callback(null, addresses.map((a) => ({ address: a.address, family: a.family })));
      else callback(null, addresses[0]?.address ?? '', addresses[0]?.family ?? 4);
    };
    const options: RequestOptions = {
      method: 'POST',
      // The host name (not an address): TLS verifies the certificate for it and sends it as the server name (SNI).
      host,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(request.body)),
        'user-agent': 'OpenPaw-Webhooks/1',
        ...request.headers,
        host: url.host,
      },
      lookup: pinned,
      // A connection of its own: a pooled one may have been opened to an address resolved for an earlier delivery.
      agent: false,
      signal: deadline,
    };
    return new Promise<number>((resolve, reject) => {
      const onResponse = (response: IncomingMessage): void => {
        // The body is not needed; reading it lets the connection close.
        response.resume();
        resolve(response.statusCode ?? 0);
      };
      const outgoing = url.protocol === 'https:' ? httpsRequest(options, onResponse) : httpRequest(options, onResponse);
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });
  }
}
