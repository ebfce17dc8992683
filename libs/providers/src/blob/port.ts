export interface BlobInfo {
  readonly key: string;
  readonly size: number;
  readonly contentType: string;
  /** User metadata (string to string), stored with the object. */
  readonly metadata: Readonly<Record<string, string>>;
  /** Base64 MD5 of the content, as GCS reports it. */
  readonly md5Base64?: string;
  /** ISO 8601. */
  readonly updatedAt: string;
}

export interface PutOptions {
  /** Default `application/octet-stream`. */
  readonly contentType?: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

export interface ListOptions {
  readonly prefix?: string;
  /** Default 100, at most 1000. */
  readonly pageSize?: number;
  /** From a previous page's `nextPageToken`. */
  readonly pageToken?: string;
}

export interface ListPage {
  /** In lexicographic key order. */
  readonly items: BlobInfo[];
  readonly nextPageToken?: string;
}

export interface ShareOptions {
  readonly expiresInSeconds: number;
  /**
   * Whom the link is for (e.g. `user:<id>`): signed into the URL with the key and the expiry, so a
   * link issued to one user cannot be re-scoped to another without breaking its signature.
   */
  readonly scope?: string;
}

export interface ShareUrl {
  readonly url: string;
  readonly expiresAt: string;
}

/**
 * Objects by key. Keys are `/`-separated paths of 1 to 1024 UTF-8 bytes; segments must not be empty,
 * `.` or `..`, and keys contain no NUL, control characters or backslashes (the same rule for every
 * backend, so a key valid locally is valid on GCS).
 */
export interface BlobStore {
  /** `local-fs` or `gcs`, for logs and health output. */
  readonly backend: string;
  put(key: string, body: Uint8Array | string, options?: PutOptions): Promise<BlobInfo>;
  /** Throws `BlobNotFoundError` when absent. */
  get(key: string): Promise<{ readonly info: BlobInfo; readonly body: Buffer }>;
  head(key: string): Promise<BlobInfo | undefined>;
  /** True when something was deleted. */
  delete(key: string): Promise<boolean>;
  list(options?: ListOptions): Promise<ListPage>;
  /** A URL anyone holding it can GET until it expires. Throws `BlobNotFoundError` when absent. */
  shareUrl(key: string, options: ShareOptions): Promise<ShareUrl>;
}
