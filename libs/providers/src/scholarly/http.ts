import type { z } from 'zod';
import { ProviderError } from '../llm/errors.js';
import type { ProviderErrorKind } from '../llm/port.js';
import { abortFailure, kindOfStatus } from '../llm/provider-failure.js';
import type { Clock, RandomSource } from '../shared/clock.js';
import { parseRetryAfterMs, retrying, type RetryPolicy } from '../shared/retry.js';
import { storableJsonReviver, toStorableText } from '../shared/storable-text.js';
import type { RateLimiter } from './rate-limiter.js';
import type { ScholarlySourceName } from './port.js';

/** How one adapter talks HTTP: its limiter, timeout, retries and secrets (redacted from errors). */
export interface ScholarlyHttp {
  readonly source: ScholarlySourceName;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  readonly secrets: readonly (string | undefined)[];
  /** A source whose statuses mean something else (OpenAlex: 403 is its rate limit). */
  readonly statusKind?: (status: number) => ProviderErrorKind;
}

export interface ScholarlyResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/**
 * GET through the source's rate limiter, with a per-request timeout; 429/5xx/timeouts/network errors
 * are retried (Retry-After honoured, and it also holds back the limiter). Throws `ProviderError`.
 */
export async function scholarlyGet(
  http: ScholarlyHttp,
  url: URL,
  init: { readonly headers?: Readonly<Record<string, string>>; readonly signal?: AbortSignal; readonly onResponse?: (headers: Headers) => void } = {},
): Promise<ScholarlyResponse> {
  return retrying(() => attempt(http, url, init), {
    policy: http.retry,
    random: http.random,
    sleep: (ms, signal) => http.clock.sleep(ms, signal),
    classify: (error) =>
      error instanceof ProviderError ? { retry: error.retryable, ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}) } : { retry: false },
    ...(init.signal !== undefined ? { signal: init.signal } : {}),
  });
}

async function attempt(
  http: ScholarlyHttp,
  url: URL,
  init: { readonly headers?: Readonly<Record<string, string>>; readonly signal?: AbortSignal; readonly onResponse?: (headers: Headers) => void },
): Promise<ScholarlyResponse> {
  const signal = init.signal === undefined ? AbortSignal.timeout(http.timeoutMs) : AbortSignal.any([init.signal, AbortSignal.timeout(http.timeoutMs)]);
  try {
    await http.limiter.acquire(init.signal);
  } catch {
    throw new ProviderError('aborted', http.source, 'request aborted by the caller');
  }
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { headers: { accept: 'application/json, application/atom+xml;q=0.9, */*;q=0.5', ...init.headers }, signal, redirect: 'follow' });
    text = await response.text();
  } catch (error) {
    throw abortFailure(signal, http.source) ?? new ProviderError('network', http.source, describe(error), { secrets: http.secrets });
  }
  init.onResponse?.(response.headers);
  if (response.ok) return { status: response.status, headers: response.headers, text };
  const retryAfterMs = parseRetryAfterMs(response.headers, http.clock.now());
  if (retryAfterMs !== undefined) await http.limiter.pauseFor(retryAfterMs);
  const kind = (http.statusKind ?? kindOfStatus)(response.status);
  throw new ProviderError(kind, http.source, `HTTP ${response.status}: ${text.slice(0, 300)}`, {
    status: response.status,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    secrets: http.secrets,
  });
}

/**
 * Whether the source's host answers at all: one GET of `url` through the source's limiter (a probe
 * honours the source's etiquette like any request), without retries, within `timeoutMs`. Any HTTP
 * status is an answer; only a network failure or the timeout is not (`network` / `timeout`).
 */
export async function scholarlyProbe(http: ScholarlyHttp, url: URL, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const deadline = signal === undefined ? AbortSignal.timeout(timeoutMs) : AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  try {
    await http.limiter.acquire(signal);
  } catch {
    throw new ProviderError('aborted', http.source, 'request aborted by the caller');
  }
  try {
    const response = await fetch(url, { method: 'GET', signal: deadline, redirect: 'manual' });
    await response.body?.cancel();
  } catch (error) {
    throw abortFailure(deadline, http.source) ?? new ProviderError('network', http.source, `${url.origin} could not be reached: ${describe(error)}`, { secrets: http.secrets });
  }
}

/**
 * Parses a JSON body against the documented shape; anything else is `malformed_response`. Every
 * string is made storable (`toStorableText`: a `\u0000` in an abstract would stop the run where it
 * reaches PostgreSQL).
 */
export function parseJsonBody<S extends z.ZodType>(source: ScholarlySourceName, response: ScholarlyResponse, schema: S): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(response.text, storableJsonReviver);
  } catch {
    throw new ProviderError('malformed_response', source, `response is not JSON: ${response.text.slice(0, 120)}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ProviderError('malformed_response', source, `unexpected response shape at ${first?.path.join('.') ?? '?'}: ${first?.message ?? ''}`);
  }
  return parsed.data;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}

/** Collapses whitespace and makes the text storable (`toStorableText`); null for empty. */
export function cleanText(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = toStorableText(value).replace(/\s+/g, ' ').trim();
  return text === '' ? null : text;
}

/** Plain text of a JATS/HTML fragment (Crossref abstracts): tags dropped, entities decoded. */
export function stripMarkup(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = value
    .replace(/<jats:title>[^<]*<\/jats:title>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&amp;/g, '&');
  return cleanText(text);
}
