import { hasErrorCode } from '@openpaw/contracts';
import { Controller, ForbiddenException, Get, GoneException, Inject, NotFoundException, Param, Req, Res } from '@nestjs/common';
import { ApiForbiddenResponse, ApiGoneResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
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
    description: 'The token (from `POST /assets/:id/share`) is HMAC-signed with its blob key and expiry: 403 if forged, 410 once expired.',
  })
  @ApiZodParams(sharedTokenParams)
  @ApiOkResponse({ description: 'The content, with the same strict CSP as `/assets/:id/content`.' })
  @ApiForbiddenResponse({ description: 'Not a valid share token.', schema: openApiSchema(errorBody) })
  @ApiGoneResponse({ description: 'The link has expired.', schema: openApiSchema(errorBody) })
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
    if (!verified.valid) {
      if (verified.reason === 'expired') throw new GoneException({ error: 'share_link_expired', message: 'this share link has expired' });
      throw new ForbiddenException({ error: 'invalid_share_link', message: 'this is not a valid share link' });
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
