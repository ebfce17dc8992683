import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** How one delivery attempt went. */
export type DeliveryAttempt =
  | { readonly kind: 'delivered'; readonly status: number }
  /** Worth another attempt later: 5xx, 408, 429, no answer in time, a network error. */
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
  /** Loopback, private, link-local and unique-local addresses are refused unless allowed (a webhook must not reach into the platform's own network). */
  readonly allowPrivateAddresses: boolean;
}

const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
PRIVATE.addAddress('::1', 'ipv6');
PRIVATE.addAddress('::', 'ipv6');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');
PRIVATE.addSubnet('fe80::', 10, 'ipv6');
PRIVATE.addSubnet('::ffff:0:0', 96, 'ipv6');

/** Whether any address the host resolves to is private (so a public name cannot point inside either). */
async function privateAddressOf(hostname: string): Promise<string | undefined> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) !== 0 ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true });
  return addresses.find((a) => PRIVATE.check(a.address, a.family === 6 ? 'ipv6' : 'ipv4'))?.address;
}

/**
 * POSTs one webhook delivery: no redirects followed, a hard time limit, and (unless allowed) no
 * private addresses. The resolution is checked before the call, not pinned for it: a name that
 * re-resolves in between (DNS rebinding) is a known limit of this check.
 */
export class WebhookSender {
  constructor(private readonly options: WebhookSenderOptions) {}

  async send(request: WebhookRequest): Promise<DeliveryAttempt> {
    const url = new URL(request.url);
    if (!this.options.allowPrivateAddresses) {
      let blocked: string | undefined;
      try {
        blocked = await privateAddressOf(url.hostname);
      } catch (error) {
        return { kind: 'retry', reason: `cannot resolve ${url.hostname}: ${error instanceof Error ? error.message : String(error)}` };
      }
      if (blocked !== undefined) return { kind: 'refused', reason: `${url.hostname} resolves to a private address (${blocked})` };
    }
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'OpenPaw-Webhooks/1', ...request.headers },
        body: request.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      // The body is not needed; reading it releases the connection.
      await response.arrayBuffer().catch(() => undefined);
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      return { kind: 'retry', reason: timedOut ? `no answer within ${this.options.timeoutMs} ms` : `request failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    const status = response.status;
    if (status >= 200 && status < 300) return { kind: 'delivered', status };
    if (status >= 500 || status === 408 || status === 429) return { kind: 'retry', reason: `answered ${status}` };
    return { kind: 'refused', reason: status >= 300 && status < 400 ? `answered a redirect (${status}); redirects are not followed` : `answered ${status}` };
  }
}
