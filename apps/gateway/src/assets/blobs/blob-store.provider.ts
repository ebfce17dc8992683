import { Inject, Injectable, type Provider } from '@nestjs/common';
import { MessageLogContext } from '@openpaw/platform';
import { type BlobStore, createBlobStoreFromEnv, localShareSecretFromEnv, type ShareTokenVerification, verifyShareToken } from '@openpaw/providers/blob';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config.js';
import { holderProof } from '../share-holder.js';

/** The blob store (`BlobStore` port): the directory or bucket every service shares, from `GatewayConfig.blobEnv`. */
export const BLOB_STORE = Symbol('openpaw.gateway.blobStore');

/**
 * Checks the share tokens of the local blob store (`GET /v1/shared/:token`). With GCS, share URLs
 * are GCS signed URLs served by GCS itself, and this route serves nothing.
 */
@Injectable()
export class ShareLinkVerifier {
  private secret: Promise<Uint8Array | string> | undefined;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  /** `undefined` when share links are not served by the gateway (not the local store). */
  async verify(token: string, now: Date = new Date()): Promise<ShareTokenVerification | undefined> {
    const secret = await this.shareSecret();
    return secret === undefined ? undefined : verifyShareToken(token, secret, now);
  }

  /** The holder cookie's value for links of this scope (`share-holder.ts`); `undefined` when links are not served here. */
  async holderProof(scope: string): Promise<string | undefined> {
    const secret = await this.shareSecret();
    return secret === undefined ? undefined : holderProof(secret, scope);
  }

  private async shareSecret(): Promise<Uint8Array | string | undefined> {
    if (this.blobs.backend !== 'local-fs') return undefined;
    // The same secret the local store signs with (env, else the secret file in the blob directory).
    this.secret ??= localShareSecretFromEnv(this.config.blobEnv);
    return this.secret;
  }
}

export const blobProviders: Provider[] = [
  {
    provide: BLOB_STORE,
    inject: [GATEWAY_CONFIG, MessageLogContext],
    useFactory: (config: GatewayConfig, logs: MessageLogContext): Promise<BlobStore> => createBlobStoreFromEnv(config.blobEnv, { logger: logs }),
  },
  ShareLinkVerifier,
];
