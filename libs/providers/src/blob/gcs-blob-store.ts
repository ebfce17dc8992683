import type { Bucket, File, FileMetadata, Storage, StorageOptions } from '@google-cloud/storage';
import { type Clock, type RandomSource, systemClock } from '../shared/clock.js';
import { defaultRetryPolicy, retrying, type RetryPolicy } from '../shared/retry.js';
import { validateBlobKey, validateBlobPrefix } from './blob-key.js';
import { BlobNotFoundError } from './errors.js';
import type { BlobInfo, BlobStore, ListOptions, ListPage, PutOptions, ShareOptions, ShareUrl } from './port.js';

export interface GcsBlobStoreConfig {
  /** `OPENPAW_GCS_BUCKET`. */
  readonly bucket: string;
  /** `OPENPAW_GCS_PROJECT_ID` (or `GOOGLE_CLOUD_PROJECT`). */
  readonly projectId?: string;
  /**
   * `OPENPAW_GCS_API_ENDPOINT`: an emulator (fake-gcs-server) or a test server. The SDK sends no
   * credentials to a custom endpoint.
   */
  readonly apiEndpoint?: string;
  /** An already configured client (wins over the fields above). */
  readonly storage?: Storage;
  readonly retry?: Partial<RetryPolicy>;
  readonly clock?: Clock;
  readonly random?: RandomSource;
}

/** The query parameter a V4 share URL carries its `ShareOptions.scope` in (signed: GCS refuses it changed). */
export const SHARE_SCOPE_PARAM = 'x-openpaw-scope';

/** Seven days: the longest a V4 signed URL may live. */
export const MAX_SIGNED_URL_SECONDS = 7 * 24 * 60 * 60;

/**
 * Google Cloud Storage through `@google-cloud/storage`. The SDK's own retries are off; 429, 5xx and
 * network failures are retried here with the shared backoff (every operation is idempotent: puts
 * overwrite whole objects). Share URLs are V4 signed URLs.
 *
 * Credentials are Application Default Credentials: workload identity or the metadata server in
 * GKE/GCE (URLs are then signed through IAM signBlob, which needs
 * `iam.serviceAccounts.signBlob` on the service account), or a service-account key file named by
 * `GOOGLE_APPLICATION_CREDENTIALS` (URLs are then signed locally with its private key). A custom
 * `apiEndpoint` (emulator) gets no credentials on its API calls.
 */
export class GcsBlobStore implements BlobStore {
  readonly backend = 'gcs';
  /** Built on first use (or given): the SDK loads only in a process that stores blobs in GCS. */
  private storage: Promise<Storage> | undefined;
  private readonly retry: RetryPolicy;
  private readonly clock: Clock;
  private readonly random: RandomSource;

  constructor(private readonly config: GcsBlobStoreConfig) {
    this.storage = config.storage === undefined ? undefined : Promise.resolve(config.storage);
    this.retry = { ...defaultRetryPolicy, ...config.retry };
    this.clock = config.clock ?? systemClock;
    this.random = config.random ?? Math.random;
  }

  async put(key: string, body: Uint8Array | string, options: PutOptions = {}): Promise<BlobInfo> {
    validateBlobKey(key);
    const data = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    const contentType = options.contentType ?? 'application/octet-stream';
    const file = await this.file(key);
    await this.withRetries(() =>
      file.save(data, {
        // One multipart request (metadata + content): the SDK's simple upload path.
        resumable: false,
        contentType,
        metadata: { contentType, metadata: { ...options.metadata } },
        validation: 'md5',
      }),
    );
    return toBlobInfo(key, file.metadata);
  }

  async get(key: string): Promise<{ info: BlobInfo; body: Buffer }> {
    const info = await this.metadataOf(key);
    if (info === undefined) throw new BlobNotFoundError(key);
    // Download the generation just described, so content and metadata belong together.
    const file = (await this.bucket()).file(key, { generation: info.generation });
    try {
      const [body] = await this.withRetries(() => file.download({ validation: false }));
      return { info: info.blob, body };
    } catch (error) {
      if (statusOf(error) === 404) throw new BlobNotFoundError(key);
      throw error;
    }
  }

  async head(key: string): Promise<BlobInfo | undefined> {
    return (await this.metadataOf(key))?.blob;
  }

  async delete(key: string): Promise<boolean> {
    validateBlobKey(key);
    try {
      const file = await this.file(key);
      await this.withRetries(() => file.delete());
      return true;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      throw error;
    }
  }

  async list(options: ListOptions = {}): Promise<ListPage> {
    const prefix = options.prefix ?? '';
    validateBlobPrefix(prefix);
    const bucket = await this.bucket();
    const [files, nextQuery] = await this.withRetries(() =>
      bucket.getFiles({
        autoPaginate: false,
        maxResults: Math.min(1000, Math.max(1, options.pageSize ?? 100)),
        ...(prefix !== '' ? { prefix } : {}),
        ...(options.pageToken !== undefined ? { pageToken: options.pageToken } : {}),
      }),
    );
    const next = (nextQuery as { pageToken?: unknown } | null | undefined)?.pageToken;
    return {
      items: files.map((f) => toBlobInfo(f.name, f.metadata)),
      ...(typeof next === 'string' && next !== '' ? { nextPageToken: next } : {}),
    };
  }

  async shareUrl(key: string, options: ShareOptions): Promise<ShareUrl> {
    if (!(options.expiresInSeconds > 0) || options.expiresInSeconds > MAX_SIGNED_URL_SECONDS) {
      throw new Error(`expiresInSeconds must be in (0, ${MAX_SIGNED_URL_SECONDS}]`);
    }
    if ((await this.head(key)) === undefined) throw new BlobNotFoundError(key);
    const now = this.clock.now();
    const expires = now + options.expiresInSeconds * 1000;
    // The scope rides as a query parameter, which V4 signs with the rest of the canonical request.
    const queryParams = options.scope === undefined ? {} : { queryParams: { [SHARE_SCOPE_PARAM]: options.scope } };
    const [url] = await (await this.file(key)).getSignedUrl({ version: 'v4', action: 'read', accessibleAt: new Date(now), expires, ...queryParams });
    return { url, expiresAt: new Date(expires).toISOString() };
  }

  private async metadataOf(key: string): Promise<{ blob: BlobInfo; generation: string | number | undefined } | undefined> {
    validateBlobKey(key);
    try {
      const file = await this.file(key);
      const [metadata] = await this.withRetries(() => file.getMetadata());
      return { blob: toBlobInfo(key, metadata), generation: metadata.generation };
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  private async bucket(): Promise<Bucket> {
    this.storage ??= import('@google-cloud/storage').then(
      ({ Storage }) =>
        new Storage({
          ...(this.config.projectId !== undefined ? { projectId: this.config.projectId } : {}),
          ...(this.config.apiEndpoint !== undefined ? { apiEndpoint: this.config.apiEndpoint } : {}),
          retryOptions: { autoRetry: false, maxRetries: 0 },
        } satisfies StorageOptions),
    );
    return (await this.storage).bucket(this.config.bucket);
  }

  private async file(key: string): Promise<File> {
    return (await this.bucket()).file(key);
  }

  private withRetries<T>(operation: () => Promise<T>): Promise<T> {
    return retrying(operation, {
      policy: this.retry,
      random: this.random,
      sleep: (ms, signal) => this.clock.sleep(ms, signal),
      classify: (error) => {
        const status = statusOf(error);
        if (status === 429 || (status !== undefined && status >= 500)) return { retry: true };
        const code = (error as NodeJS.ErrnoException | undefined)?.code;
        return { retry: status === undefined && (code === 'ECONNRESET' || code === 'ECONNREFUSED' || code === 'ETIMEDOUT' || code === 'EPIPE') };
      },
    });
  }
}

function statusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

function toBlobInfo(key: string, metadata: FileMetadata): BlobInfo {
  const user: Record<string, string> = {};
  for (const [name, value] of Object.entries(metadata.metadata ?? {})) {
    if (value !== null && value !== undefined) user[name] = String(value);
  }
  return {
    key,
    size: Number(metadata.size ?? 0),
    contentType: metadata.contentType ?? 'application/octet-stream',
    metadata: user,
    ...(typeof metadata.md5Hash === 'string' ? { md5Base64: metadata.md5Hash } : {}),
    updatedAt: metadata.updated ?? new Date(0).toISOString(),
  };
}
