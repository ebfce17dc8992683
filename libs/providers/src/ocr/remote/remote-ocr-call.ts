import { loadSharp } from '../../shared/load-sharp.js';
import { redactSecrets } from '../../shared/redact.js';
import { parseRetryAfterMs } from '../../shared/retry.js';
import { storableJsonReviver } from '../../shared/storable-text.js';
import { DEFAULT_DECODE_LIMITS, type DecodeLimits } from '../raster.js';
import { type OcrBox, OcrInputError, OcrReaderError, type OcrReadOptions, OcrTimeoutError } from '../port.js';

/** What a remote reader sends: the image's format (for a data URL), its size, and its bytes as base64. */
export interface PreparedImage {
  readonly mimeType: 'image/png' | 'image/jpeg' | 'image/webp';
  readonly width: number;
  readonly height: number;
  readonly base64: string;
}

const MIME_OF_FORMAT: Readonly<Record<string, PreparedImage['mimeType']>> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/**
 * Checks the image locally before paying for a call: a PNG, JPEG or WebP, within the pixel limits.
 * Only the header is read (no decode), so this costs microseconds.
 */
export async function prepareImage(image: Uint8Array, limits: DecodeLimits = DEFAULT_DECODE_LIMITS): Promise<PreparedImage> {
  const sharp = await loadSharp();
  let metadata: { readonly format?: string; readonly width?: number; readonly height?: number };
  try {
    metadata = await sharp(image).metadata();
  } catch (error) {
    throw new OcrInputError(`image cannot be decoded: ${error instanceof Error ? error.message : String(error)}`);
  }
  const mimeType = metadata.format === undefined ? undefined : MIME_OF_FORMAT[metadata.format];
  if (mimeType === undefined) throw new OcrInputError(`image format ${metadata.format ?? 'unknown'} is not read; send PNG, JPEG or WebP`);
  const width = metadata.width ?? 0;
  const height = metadata.height ?? 0;
  if (width < limits.minSide || height < limits.minSide) throw new OcrInputError(`image is ${width}×${height} px; at least ${limits.minSide} px a side is needed to hold text`);
  if (width * height > limits.maxPixels) throw new OcrInputError(`image is ${width}×${height} px; at most ${limits.maxPixels} pixels are read`);
  return { mimeType, width, height, base64: Buffer.from(image.buffer, image.byteOffset, image.byteLength).toString('base64') };
}

export interface RemoteCall {
  /** The reader's name, in every error message. */
  readonly reader: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  /** Credentials: masked in every error message, even when the service echoes them. */
  readonly secrets: readonly (string | undefined)[];
  /** The service's own error text in a failed response's body. */
  readonly errorText: (body: unknown) => string | undefined;
  /** Whether a failed answer refuses the input (→ `OcrInputError`); default: HTTP 400, 413, 415, 422. */
  readonly refusesInput?: (status: number, body: unknown) => boolean;
}

const INPUT_REFUSED = new Set([400, 413, 415, 422]);

/**
 * POSTs JSON and returns the parsed 2xx body. Failures become the port's errors: a timeout or the
 * caller's abort → `OcrTimeoutError`; 400/413/415/422 → `OcrInputError` (the image or request was
 * refused); 401/403, 429, 5xx, network and unparsable answers → `OcrReaderError`. No retry here: the
 * caller decides (a saga step retries; 429's Retry-After is named in the message).
 */
export async function postJson(call: RemoteCall, defaultTimeoutMs: number, options: OcrReadOptions): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]);
  const clean = (text: string): string => redactSecrets(text, call.secrets);
  let response: Response;
  let text: string;
  try {
    response = await fetch(call.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...call.headers }, body: JSON.stringify(call.body), signal });
    text = await response.text();
  } catch (error) {
    if (timeout.aborted) throw new OcrTimeoutError(`${call.reader}: no answer within ${timeoutMs} ms`);
    if (options.signal?.aborted === true) throw new OcrTimeoutError(`${call.reader}: read aborted by the caller`);
    throw new OcrReaderError(clean(`${call.reader}: request failed: ${error instanceof Error ? error.message : String(error)}`));
  }
  let parsed: unknown;
  try {
    // Recognised text may hold a `\u0000` escape or a lone surrogate: repaired here, before it can reach PostgreSQL.
    parsed = JSON.parse(text, storableJsonReviver) as unknown;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const detail = (parsed === undefined ? undefined : call.errorText(parsed)) ?? text.slice(0, 200);
    const message = clean(`${call.reader}: HTTP ${response.status}: ${detail}`);
    if ((call.refusesInput ?? ((status) => INPUT_REFUSED.has(status)))(response.status, parsed)) throw new OcrInputError(message);
    const retryAfterMs = response.status === 429 ? parseRetryAfterMs(response.headers, Date.now()) : undefined;
    throw new OcrReaderError(retryAfterMs === undefined ? message : `${message} (retry after ${retryAfterMs} ms)`);
  }
  if (parsed === undefined) throw new OcrReaderError(`${call.reader}: HTTP ${response.status} answer is not JSON`);
  return parsed;
}

/** The axis-aligned box around polygon points, clamped to the image. */
export function boxAround(points: readonly { readonly x: number; readonly y: number }[], width: number, height: number): OcrBox {
  if (points.length === 0) return { x0: 0, y0: 0, x1: width, y1: height };
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const clamp = (v: number, max: number): number => Math.min(max, Math.max(0, Math.round(v)));
  return { x0: clamp(Math.min(...xs), width), y0: clamp(Math.min(...ys), height), x1: clamp(Math.max(...xs), width), y1: clamp(Math.max(...ys), height) };
}

/** A probability from the wire: a number in 0..1, else `fallback`. */
export function probability(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : fallback;
}
