import { Controller, Get, NotFoundException, Param, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { CurrentUser } from '../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../auth/tokens.js';
import { ApiZodParams, BEARER_SCHEME, openApiSchema } from '../http/openapi.js';
import { ZodValidationPipe } from '../http/zod-validation.pipe.js';
import { errorBody, runIdParams, validationErrorBody } from '../runs/runs.schemas.js';
import { AssetAccess } from './asset-access.js';
import { contentPathOf, missingContentBody } from './assets.schemas.js';
import type { AssetRecord } from './projection/asset-projection.store.js';
import { sendBlob } from './blobs/send-blob.js';

function missing(body: z.output<typeof missingContentBody>): NotFoundException {
  return new NotFoundException(body);
}

/** A run's solution and video, served directly (a CLI or a page needs one URL per run). */
@ApiTags('runs')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@ApiBadRequestResponse({ description: 'Invalid input; `issues` name the fields.', schema: openApiSchema(validationErrorBody) })
@Controller('runs')
export class RunAssetsController {
  constructor(private readonly access: AssetAccess) {}

  @Get(':id/solution')
  @ApiOperation({
    summary: 'The solution HTML of a run.',
    description:
      'The content of the asset version the run produced or was served (`output.asset_version_id`), with the strict CSP. ' +
      '404 `solution_pending` while there is none yet, `no_solution` when the run ended without one.',
  })
  @ApiProduces('text/html')
  @ApiZodParams(runIdParams)
  @ApiOkResponse({ description: 'The solution HTML.' })
  @ApiNotFoundResponse({ description: 'No such run, or no solution (yet).', schema: openApiSchema(missingContentBody) })
  async solution(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(runIdParams)) params: z.output<typeof runIdParams>,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const solution = await this.access.runSolution(params.id, user.userId);
    switch (solution.kind) {
      case 'notFound':
        throw missing({ error: 'not_found', message: 'no such run' });
      case 'pending':
        response.setHeader('Retry-After', '1');
        throw missing({ error: 'solution_pending', message: 'the run has no solution yet', state: solution.run.state });
      case 'none':
        throw missing({ error: 'no_solution', message: `the run ended in ${solution.run.state} without a solution`, state: solution.run.state });
      case 'ready':
        await this.serve(solution.asset, request, response);
    }
  }

  @Get(':id/video')
  @ApiOperation({
    summary: 'The video of a run’s solution.',
    description: '404 `video_pending` (with `video_pending: true`) until it is rendered; `no_video` when none will come.',
  })
  @ApiProduces('video/mp4')
  @ApiZodParams(runIdParams)
  @ApiOkResponse({ description: 'The MP4 (byte ranges supported).' })
  @ApiNotFoundResponse({ description: 'No such run, or no video (yet).', schema: openApiSchema(missingContentBody) })
  async video(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(runIdParams)) params: z.output<typeof runIdParams>,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const video = await this.access.runVideo(params.id, user.userId);
    switch (video.kind) {
      case 'notFound':
        throw missing({ error: 'not_found', message: 'no such run' });
      case 'missing':
        throw missing(
          video.videoPending
            ? { error: 'video_pending', message: 'the video is not rendered yet', video_pending: true }
            : { error: 'no_video', message: 'the run has no video', video_pending: false },
        );
      case 'ready':
        await this.serve(video.asset, request, response);
    }
  }

  private async serve(asset: AssetRecord, request: Request, response: Response): Promise<void> {
    const body = await this.access.content(asset);
    if (body === undefined) throw missing({ error: 'not_found', message: 'the asset’s content is missing from storage' });
    response.setHeader('Content-Location', contentPathOf(asset.assetVersionId));
    response.setHeader('X-Asset-Version-Id', asset.assetVersionId);
    sendBlob(request, response, { body, contentType: asset.contentType, caching: 'immutable' });
  }
}
