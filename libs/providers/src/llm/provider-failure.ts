import { parseRetryAfterMs } from '../shared/retry.js';
import { ProviderError } from './errors.js';
import type { ProviderErrorKind } from './port.js';

/** Maps an HTTP status to the kind the resilience layer acts on. */
export function kindOfStatus(status: number): ProviderErrorKind {
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status >= 500) return 'server_error';
  return 'bad_request';
}

/** When the attempt's signal fired, the failure is a timeout (our deadline) or an abort (the caller's). */
export function abortFailure(signal: AbortSignal, provider: string): ProviderError | undefined {
  if (!signal.aborted) return undefined;
  const reason: unknown = signal.reason;
  // DOMException is not always `instanceof Error` (other realms), so check the name.
  const isTimeout = typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'TimeoutError';
  return new ProviderError(isTimeout ? 'timeout' : 'aborted', provider, isTimeout ? 'request timed out' : 'request aborted by the caller');
}

interface HttpLikeError {
  readonly status: number;
  readonly headers?: { get(name: string): string | null };
  readonly message: string;
}

function isHttpLikeError(error: unknown): error is HttpLikeError {
  return error instanceof Error && typeof (error as { status?: unknown }).status === 'number';
}

/**
 * Normalises an error thrown by the openai or @anthropic-ai/sdk clients (same generated error
 * hierarchy: APIError with status and headers, APIConnectionError, APIConnectionTimeoutError) or by
 * fetch into a ProviderError, reading Retry-After from the response headers.
 */
export function providerFailure(
  error: unknown,
  provider: string,
  signal: AbortSignal,
  nowMs: number,
  secrets: readonly (string | undefined)[],
  headersOverride?: { get(name: string): string | null },
): ProviderError {
  if (error instanceof ProviderError) return error;
  const aborted = abortFailure(signal, provider);
  if (aborted !== undefined) return aborted;
  if (isHttpLikeError(error)) {
    const headers = headersOverride ?? error.headers;
    const retryAfterMs = parseRetryAfterMs(headers, nowMs);
    return new ProviderError(kindOfStatus(error.status), provider, `HTTP ${error.status}: ${error.message}`, {
      status: error.status,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      secrets,
    });
  }
  const name = error instanceof Error ? error.constructor.name : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof SyntaxError) return new ProviderError('malformed_response', provider, `response is not valid JSON: ${message}`, { secrets });
  if (/Timeout/i.test(name)) return new ProviderError('timeout', provider, message, { secrets });
  if (/Connection|FetchError|TypeError/.test(name)) return new ProviderError('network', provider, message, { secrets });
  return new ProviderError('malformed_response', provider, `${name}: ${message}`, { secrets });
}
