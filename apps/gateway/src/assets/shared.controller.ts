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

/** Why a share token is refused (403), by what `verifyShareToken` found: each names the problem. */
const REFUSALS: Record<'malformed' | 'bad_signature' | 'expired', { readonly error: string; readonly message: string }> = {
  malformed: { error: 'share_link_malformed', message: 'this is not a share link: its token is not a signed payload' },
  bad_signature: { error: 'share_link_tampered', message: 'this share link’s signature does not match its content: it was altered or not issued here' },
  expired: { error: 'share_link_expired', message: 'this share link has expired: ask for a new one' },
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
      '403 naming the problem when it is malformed, altered or expired (as a GCS signed URL is refused by GCS).',
  })
  @ApiZodParams(sharedTokenParams)
  @ApiOkResponse({ description: 'The content, with the same strict CSP as `/assets/:id/content`.' })
  @ApiForbiddenResponse({ description: '`share_link_malformed`, `share_link_tampered` or `share_link_expired`.', schema: openApiSchema(errorBody) })
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
