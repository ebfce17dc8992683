import type { Celebrity, RecognizeCelebritiesCommand, RekognitionClient } from '@aws-sdk/client-rekognition';
import { type Clock, type RandomSource, systemClock } from '../shared/clock.js';
import { defaultRetryPolicy, retrying, type RetryPolicy } from '../shared/retry.js';
import { ProviderError } from '../llm/errors.js';
import type { ProviderErrorKind } from '../llm/port.js';
import { type CelebrityRecognizer, largestFirst, type RecognitionResult, type RecognizedCelebrity } from './port.js';
import { MAX_RECOGNITION_BYTES } from './prepare-image.js';

export interface RekognitionRecognizerConfig {
  readonly region: string;
  /** A custom endpoint (a VPC endpoint, or a wire-level test server). */
  readonly endpoint?: string;
  /** Static credentials; without them the SDK's default chain (env, profile, instance role). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string };
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly clock?: Clock;
  readonly random?: RandomSource;
}

const THROTTLED = new Set(['ThrottlingException', 'ProvisionedThroughputExceededException', 'LimitExceededException', 'TooManyRequestsException']);
const AUTH = new Set(['AccessDeniedException', 'UnrecognizedClientException', 'InvalidSignatureException', 'ExpiredTokenException', 'MissingAuthenticationTokenException']);
const BAD_INPUT = new Set(['ImageTooLargeException', 'InvalidImageFormatException', 'InvalidParameterException', 'ValidationException']);

/**
 * Amazon Rekognition `RecognizeCelebrities` with the image bytes inline (JPEG/PNG ≤ 5 MB: callers
 * prepare images with `prepareImageForRecognition`). The SDK's own retries are off; throttling, 5xx,
 * timeouts and network failures are retried here with backoff. Faces come back largest first.
 */
export class RekognitionRecognizer implements CelebrityRecognizer {
  readonly provider = 'aws/rekognition';
  readonly local = false;
  /** Built on the first call: the AWS SDK loads only in a process that recognises through it. */
  private client: Promise<{ readonly instance: RekognitionClient; readonly RecognizeCelebritiesCommand: typeof RecognizeCelebritiesCommand }> | undefined;
  private readonly clock: Clock;
  private readonly retry: RetryPolicy;

  constructor(private readonly config: RekognitionRecognizerConfig) {
    this.clock = config.clock ?? systemClock;
    this.retry = { ...defaultRetryPolicy, ...config.retry };
  }

  private sdk(): NonNullable<typeof this.client> {
    this.client ??= import('@aws-sdk/client-rekognition').then((sdk) => ({
      RecognizeCelebritiesCommand: sdk.RecognizeCelebritiesCommand,
      instance: new sdk.RekognitionClient({
        region: this.config.region,
        maxAttempts: 1,
        ...(this.config.endpoint !== undefined ? { endpoint: this.config.endpoint } : {}),
        ...(this.config.credentials !== undefined ? { credentials: this.config.credentials } : {}),
      }),
    }));
    return this.client;
  }

  async recognize(image: Uint8Array, options: { readonly signal?: AbortSignal } = {}): Promise<RecognitionResult> {
    if (image.length > MAX_RECOGNITION_BYTES) throw new ProviderError('bad_request', 'rekognition', `image is ${image.length} bytes; the limit is ${MAX_RECOGNITION_BYTES}`);
    return retrying(() => this.attempt(image, options.signal), {
      policy: this.retry,
      random: this.config.random ?? Math.random,
      sleep: (ms, s) => this.clock.sleep(ms, s),
      classify: (error) => ({ retry: error instanceof ProviderError && error.retryable }),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
  }

  private async attempt(image: Uint8Array, caller: AbortSignal | undefined): Promise<RecognitionResult> {
    const timeout = AbortSignal.timeout(this.config.timeoutMs ?? 20_000);
    const signal = caller === undefined ? timeout : AbortSignal.any([caller, timeout]);
    try {
      const { instance, RecognizeCelebritiesCommand } = await this.sdk();
      const response = await instance.send(new RecognizeCelebritiesCommand({ Image: { Bytes: image } }), { abortSignal: signal });
      const celebrities = (response.CelebrityFaces ?? []).map(toCelebrity).filter((c): c is RecognizedCelebrity => c !== undefined);
      return { provider: this.provider, local: false, celebrities: largestFirst(celebrities), unrecognizedFaces: response.UnrecognizedFaces?.length ?? 0 };
    } catch (error) {
      throw rekognitionFailure(error, signal);
    }
  }

  destroy(): void {
    void this.client?.then(({ instance }) => instance.destroy(), () => undefined);
  }
}

function toCelebrity(c: Celebrity): RecognizedCelebrity | undefined {
  if (c.Id === undefined || c.Name === undefined) return undefined;
  const box = c.Face?.BoundingBox;
  return {
    celebrityId: c.Id,
    name: c.Name,
    matchConfidence: c.MatchConfidence ?? 0,
    box: { left: box?.Left ?? 0, top: box?.Top ?? 0, width: box?.Width ?? 0, height: box?.Height ?? 0 },
    urls: c.Urls ?? [],
  };
}

function rekognitionFailure(error: unknown, signal: AbortSignal): ProviderError {
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    const timedOut = typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'TimeoutError';
    return new ProviderError(timedOut ? 'timeout' : 'aborted', 'rekognition', timedOut ? 'request timed out' : 'request aborted by the caller');
  }
  const e = error as { name?: unknown; message?: unknown; $metadata?: { httpStatusCode?: number }; $fault?: unknown };
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const message = typeof e.message === 'string' ? e.message : String(error);
  const status = e.$metadata?.httpStatusCode;
  let kind: ProviderErrorKind;
  if (THROTTLED.has(name) || status === 429) kind = 'rate_limited';
  else if (AUTH.has(name) || status === 401 || status === 403) kind = 'auth';
  else if (BAD_INPUT.has(name)) kind = 'bad_request';
  else if (name === 'InternalServerError' || (status !== undefined && status >= 500) || e.$fault === 'server') kind = 'server_error';
  else if (status === undefined && /ECONN|socket|network|EPIPE|ENOTFOUND/i.test(`${name} ${message}`)) kind = 'network';
  else if (error instanceof SyntaxError || /Deserializ|JSON/i.test(`${name} ${message}`)) kind = 'malformed_response';
  else kind = status !== undefined && status >= 400 ? 'bad_request' : 'malformed_response';
  return new ProviderError(kind, 'rekognition', `${name}: ${message}`, status !== undefined ? { status } : {});
}
