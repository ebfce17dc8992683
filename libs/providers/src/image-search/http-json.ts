import { type Clock, type RandomSource, systemClock } from '../shared/clock.js';
import { defaultRetryPolicy, parseRetryAfterMs, retrying, type RetryPolicy } from '../shared/retry.js';
import { storableJsonReviver } from '../shared/storable-text.js';
import { ProviderError } from '../llm/errors.js';
import { abortFailure, kindOfStatus } from '../llm/provider-failure.js';

export interface HttpJsonClientConfig {
  /** Provider name used in errors, e.g. `serpapi`. */
  readonly provider: string;
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly clock?: Clock;
  readonly random?: RandomSource;
  /** Values to redact from error messages (API keys). */
  readonly secrets?: readonly (string | undefined)[];
}

/**
 * GET a JSON document from a search API: per-attempt timeout, 429/5xx/timeouts/network errors retried
 * with backoff (or exactly the server's Retry-After), everything else thrown at once as a typed
 * `ProviderError`. Shared by the image-search adapters, which differ only in URL, auth and parsing.
 */
export class HttpJsonClient {
  private readonly clock: Clock;
  private readonly retry: RetryPolicy;

  constructor(private readonly config: HttpJsonClientConfig) {
    this.clock = config.clock ?? systemClock;
    this.retry = { ...defaultRetryPolicy, ...config.retry };
  }

  async getJson(url: URL, headers: Readonly<Record<string, string>>, signal?: AbortSignal): Promise<unknown> {
    return retrying(() => this.attempt(url, headers, signal), {
      policy: this.retry,
      random: this.config.random ?? Math.random,
      sleep: (ms, s) => this.clock.sleep(ms, s),
      classify: (error) =>
        error instanceof ProviderError
          ? { retry: error.retryable, ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}) }
          : { retry: false },
      ...(signal !== undefined ? { signal } : {}),
    });
  }

  private async attempt(url: URL, headers: Readonly<Record<string, string>>, caller: AbortSignal | undefined): Promise<unknown> {
    const timeout = AbortSignal.timeout(this.config.timeoutMs ?? 15_000);
    const signal = caller === undefined ? timeout : AbortSignal.any([caller, timeout]);
    const { provider } = this.config;
    const secrets = this.config.secrets ?? [];
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, { method: 'GET', headers: { accept: 'application/json', ...headers }, signal });
      text = await response.text();
    } catch (error) {
      throw abortFailure(signal, provider) ?? new ProviderError('network', provider, error instanceof Error ? error.message : String(error), { secrets });
    }
    if (!response.ok) {
      const retryAfterMs = parseRetryAfterMs(response.headers, this.clock.now());
      throw new ProviderError(kindOfStatus(response.status), provider, `HTTP ${response.status}: ${errorMessageOf(text)}`, {
        status: response.status,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        secrets,
      });
    }
    try {
      // Titles and page text of search results may hold a `\u0000` escape or a lone surrogate: repaired before they are stored.
      return JSON.parse(text, storableJsonReviver) as unknown;
    } catch {
      throw new ProviderError('malformed_response', provider, 'response is not valid JSON', { status: response.status, secrets });
    }
  }
}

/** The provider's error text, when the body has one (`{"error": "..."}`, `{"error": {"message": ...}}`). */
function errorMessageOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
    if (typeof parsed.error === 'object' && parsed.error !== null && typeof (parsed.error as { message?: unknown }).message === 'string') {
      return (parsed.error as { message: string }).message;
    }
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: fall through to the raw text
  }
  return body.slice(0, 200);
}
