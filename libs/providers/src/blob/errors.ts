import { OpenPawError } from '@openpaw/contracts';
export class BlobNotFoundError extends OpenPawError {
  readonly code = 'blob_not_found';
  override readonly name = 'BlobNotFoundError';
  constructor(readonly key: string) {
    super(`no blob with key "${key}"`);
  }
}

export class InvalidBlobKeyError extends OpenPawError {
  readonly code = 'invalid_blob_key';
  override readonly name = 'InvalidBlobKeyError';
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`invalid blob key ${JSON.stringify(key.slice(0, 200))}: ${reason}`);
  }
}
