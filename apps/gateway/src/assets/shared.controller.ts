import { hasErrorCode } from '@openpaw/contracts';
import { Controller, ForbiddenException, Get, Inject, NotFoundException, Param, Req, Res } from '@nestjs/common';
import { ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PublicRoute } from '@openpaw/platform';
import type { BlobStore } from '@openpaw/providers/blob';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { ApiZodParams, openApiSchema } from '../http/openapi.js';
import { ZodValidationPipe } from '../http/zod-validation.pipe.js';
import { errorBody } from '../runs/runs.schemas.js';
import { sharedTokenParams } from './assets.schemas.js';
import { BLOB_STORE, ShareLinkVerifier } from './blobs/blob-store.provider.js';
import { sendBlob } from './blobs/send-blob.js';
import { holdsProof, isHolderBound } from './share-holder.js';

/** Why a share token is refused (403), by what `verifyShareToken` found, or whose request it is: each names the problem. */
const REFUSALS: Record<'malformed' | 'bad_signature' | 'expired' | 'not_holder', { readonly error: string; readonly message: string }> = {
  malformed: { error: 'share_link_malformed', message: 'this is not a share link: its token is not a signed payload' },
  bad_signature: { error: 'share_link_tampered', message: 'this share link’s signature does not match its content: it was altered or not issued here' },
  expired: { error: 'share_link_expired', message: 'this share link has expired: ask for a new one' },
  not_holder: {
    error: 'share_link_not_holder',
    message: 'this share link was issued to a signed-in user’s browser and is served only with that browser’s holder cookie, which this request does not carry: open it from the console, signed in',
  },
};

/** Share links of the local blob store: no bearer token, the signed token is the authority. */
@ApiTags('assets')
@Controller('v1/shared')
export class SharedController {
  constructor(
    private readonly verifier: ShareLinkVerifier,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  @Get(':token')
  @PublicRoute()
  @ApiOperation({
    summary: 'Content behind a share link (no authentication).',
    description: 'The token (from `POST /assets/:id/share`, or a visual degrees evidence thumbnail’s signed URL) is HMAC-signed with its blob key, expiry and scope: ' +
      '403 naming the problem when it is malformed, altered or expired (as a GCS signed URL is refused by GCS). ' +
      'A link signed for one user (an evidence thumbnail’s) is served only with the HttpOnly, SameSite=Strict holder cookie set on the response that issued it: 403 `share_link_not_holder` to anyone else.',
  })
  @ApiZodParams(sharedTokenParams)
  @ApiOkResponse({ description: 'The content, with the same strict CSP as `/assets/:id/content`.' })
  @ApiForbiddenResponse({ description: '`share_link_malformed`, `share_link_tampered`, `share_link_expired` or `share_link_not_holder`.', schema: openApiSchema(errorBody) })
  @ApiNotFoundResponse({ description: 'The content no longer exists.', schema: openApiSchema(errorBody) })
  async get(
    @Param(new ZodValidationPipe(sharedTokenParams)) params: z.output<typeof sharedTokenParams>,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const verified = await this.verifier.verify(params.token);
    if (verified === undefined) {
      throw new NotFoundException({ error: 'not_found', message: 'share links are served by the storage backend, not here' });
    }
    if (!verified.valid) throw new ForbiddenException(REFUSALS[verified.reason]);
    // A link signed for one user is theirs alone: a copy replayed by anyone else is refused (share-holder.ts).
    if (isHolderBound(verified.scope)) {
      const proof = await this.verifier.holderProof(verified.scope);
      if (proof === undefined || !holdsProof(request.headers.cookie, proof)) throw new ForbiddenException(REFUSALS.not_holder);
    }
    let blob;
    try {
      blob = await this.blobs.get(verified.key);
    } catch (error) {
      if (hasErrorCode(error, 'blob_not_found')) throw new NotFoundException({ error: 'not_found', message: 'the shared content no longer exists' });
      throw error;
    }
    sendBlob(request, response, { body: blob.body, contentType: blob.info.contentType, caching: 'no-store' });
  }
}
