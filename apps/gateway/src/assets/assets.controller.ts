import { hasErrorCode } from '@openpaw/contracts';
import { Body, Controller, Get, HttpCode, Inject, NotFoundException, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { BlobStore } from '@openpaw/providers/blob';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { CurrentUser } from '../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../auth/tokens.js';
import { ApiZodBody, ApiZodParams, BEARER_SCHEME, openApiSchema } from '../http/openapi.js';
import { ZodValidationPipe } from '../http/zod-validation.pipe.js';
import { errorBody, validationErrorBody } from '../runs/runs.schemas.js';
import { AssetAccess } from './asset-access.js';
import { assetIdParams, assetResource, shareBody, shareBodyDoc, shareLink, toAssetResource } from './assets.schemas.js';
import { BLOB_STORE } from './blobs/blob-store.provider.js';
import { CONTENT_SECURITY_POLICY, sendBlob } from './blobs/send-blob.js';

export const assetNotFound = (): NotFoundException => new NotFoundException({ error: 'not_found', message: 'no such asset' });

/** Asset versions (solutions, videos) the caller may see: metadata, content, share links. */
@ApiTags('assets')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@ApiBadRequestResponse({ description: 'Invalid input; `issues` name the fields.', schema: openApiSchema(validationErrorBody) })
@ApiNotFoundResponse({ description: 'No such asset, or not one of the caller’s.', schema: openApiSchema(errorBody) })
@Controller('assets')
export class AssetsController {
  constructor(
    private readonly access: AssetAccess,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  @Get(':assetVersionId')
  @ApiOperation({
    summary: 'An asset version’s metadata.',
    description: 'Visible to the user whose run produced it and to users with a run that was served it; a video with its solution.',
  })
  @ApiZodParams(assetIdParams)
  @ApiOkResponse({ schema: openApiSchema(assetResource) })
  async get(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(assetIdParams)) params: z.output<typeof assetIdParams>,
  ): Promise<z.output<typeof assetResource>> {
    const asset = await this.access.visibleAsset(params.assetVersionId, user.userId);
    if (asset === undefined) throw assetNotFound();
    const video = asset.assetType === 'video' ? undefined : await this.access.videoOf(asset);
    return toAssetResource(asset, video);
  }

  @Get(':assetVersionId/content')
  @ApiOperation({
    summary: 'An asset version’s content.',
    description:
      `Solution HTML as \`text/html\` with \`Content-Security-Policy: ${CONTENT_SECURITY_POLICY}\` (nothing runs, nothing loads); ` +
      'video as `video/mp4` with byte ranges.',
  })
  @ApiProduces('text/html', 'video/mp4')
  @ApiZodParams(assetIdParams)
  @ApiOkResponse({ description: 'The content.' })
  async content(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(assetIdParams)) params: z.output<typeof assetIdParams>,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const asset = await this.access.visibleAsset(params.assetVersionId, user.userId);
    if (asset === undefined) throw assetNotFound();
    const body = await this.access.content(asset);
    if (body === undefined) throw new NotFoundException({ error: 'not_found', message: 'the asset’s content is missing from storage' });
    sendBlob(request, response, { body, contentType: asset.contentType, caching: 'immutable' });
  }

  @Post(':assetVersionId/share')
  @HttpCode(201)
  @ApiOperation({
    summary: 'A signed, expiring link to an asset’s content.',
    description: 'Anyone holding the URL can GET the content, without a token, until `expires_at`.',
  })
  @ApiZodParams(assetIdParams)
  @ApiZodBody(shareBodyDoc, { required: false, parsedBy: shareBody, examples: { oneDay: { expires_in_seconds: 86_400 }, defaultHour: {} } })
  @ApiCreatedResponse({ schema: openApiSchema(shareLink) })
  async share(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(assetIdParams)) params: z.output<typeof assetIdParams>,
    @Body(new ZodValidationPipe(shareBody)) body: z.output<typeof shareBody>,
  ): Promise<z.output<typeof shareLink>> {
    const asset = await this.access.visibleAsset(params.assetVersionId, user.userId);
    if (asset === undefined) throw assetNotFound();
    try {
      const link = await this.blobs.shareUrl(asset.storageKey, { expiresInSeconds: body.expires_in_seconds });
      return { asset_version_id: asset.assetVersionId, url: link.url, expires_at: link.expiresAt };
    } catch (error) {
      if (hasErrorCode(error, 'blob_not_found')) {
        throw new NotFoundException({ error: 'not_found', message: 'the asset’s content is missing from storage' });
      }
      throw error;
    }
  }
}
