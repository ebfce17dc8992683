import {
  BadRequestException,
  Controller,
  Inject,
  Param,
  Post,
  Put,
  Query,
  Req,
  Res,
  UnprocessableEntityException,
  UnsupportedMediaTypeException,
  UseInterceptors,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { CurrentUser } from '../../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../../auth/tokens.js';
import { ApiZodParams, ApiZodQuery, BEARER_SCHEME, openApiSchema, validatedExamples } from '../../http/openapi.js';
import { type ValidationErrorBody, ZodValidationPipe } from '../../http/zod-validation.pipe.js';
import { errorBody, validationErrorBody } from '../../runs/runs.schemas.js';
import {
  notebookParams,
  notebookSourceParams,
  sourceJsonBody,
  sourceJsonBodyDoc,
  sourceMultipartFields,
  sourceQuery,
  sourceRejectedBody,
  type SourceResource,
  sourceResource,
} from '../artifacts.schemas.js';
import { ARTIFACTS_API_CONFIG, type ArtifactsApiConfig } from '../config.js';
import { AddSourceHandler, type SourceInput } from './add-source.handler.js';
import { SOURCE_FILE_FIELD, SourceUploadInterceptor } from './source-upload.interceptor.js';

interface UploadedDocument {
  readonly buffer: Buffer;
  readonly size: number;
  readonly originalname: string;
  readonly mimetype: string;
}

/** The source from a JSON body or a multipart upload (already parsed by the interceptor). */
function sourceOf(request: Request): { input: SourceInput; title: string | undefined } {
  if (request.is('multipart/form-data') === 'multipart/form-data') {
    const fields = new ZodValidationPipe(sourceMultipartFields).transform(request.body ?? {}, { type: 'body' });
    const file = (request as Request & { file?: UploadedDocument }).file;
    if (file === undefined || file.size === 0) {
      const body: ValidationErrorBody = { error: 'validation_failed', location: 'body', issues: [{ path: SOURCE_FILE_FIELD, message: 'a non-empty file is required' }] };
      throw new BadRequestException(body);
    }
    const filename = file.originalname.length > 0 ? file.originalname : undefined;
    return { input: { kind: 'file', bytes: file.buffer, contentType: file.mimetype || 'application/octet-stream', ...(filename === undefined ? {} : { filename }) }, title: fields.title };
  }
  const contentType = request.headers['content-type'];
  if (contentType !== undefined && request.is('application/json') !== 'application/json') {
    throw new UnsupportedMediaTypeException({ error: 'unsupported_media_type', message: 'send application/json ({ text } or { url }) or multipart/form-data with a document as "file"' });
  }
  const body = new ZodValidationPipe(sourceJsonBody).transform(request.body, { type: 'body' });
  return { input: body.text !== undefined ? { kind: 'text', text: body.text } : { kind: 'url', url: body.url ?? '' }, title: body.title };
}

const sourceRequestBody = {
  required: true,
  content: {
    'application/json': {
      schema: openApiSchema(sourceJsonBodyDoc, 'input'),
      examples: validatedExamples(sourceJsonBody, {
        text: { text: 'Photosynthesis turns light energy into chemical energy in the chloroplasts. The Calvin cycle takes place in the stroma.', title: 'Photosynthesis' },
        url: { url: 'https://en.wikipedia.org/wiki/Photosynthesis' },
      }),
    },
    'multipart/form-data': { schema: { type: 'object' as const, properties: { file: { type: 'string' as const, format: 'binary' }, title: { type: 'string' as const } } } },
  },
};

/** Notebook sources (spec 02): text, a URL or a file (text, HTML, PDF), indexed by the artifacts service. */
@ApiTags('notebooks')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@ApiBadRequestResponse({ description: 'Invalid input; `issues` name the fields.', schema: openApiSchema(validationErrorBody) })
@ApiUnprocessableEntityResponse({ description: 'The source was rejected (no text, unsupported type, unreachable URL).', schema: openApiSchema(sourceRejectedBody) })
@Controller('notebooks')
export class SourcesController {
  constructor(
    private readonly addSource: AddSourceHandler,
    @Inject(ARTIFACTS_API_CONFIG) private readonly config: ArtifactsApiConfig,
  ) {}

  @Post(':notebookId/sources')
  @UseInterceptors(SourceUploadInterceptor)
  @ApiOperation({
    summary: 'Add a source to a notebook.',
    description:
      'The artifacts service extracts its text, normalises, chunks (stable chunk ids) and indexes it. The same content added twice is ' +
      'one source (same id). 201 once indexed, 202 while pending (`?wait=` seconds, default 15).',
    requestBody: sourceRequestBody,
  })
  @ApiZodParams(notebookParams)
  @ApiZodQuery(sourceQuery)
  @ApiCreatedResponse({ schema: openApiSchema(sourceResource) })
  @ApiAcceptedResponse({ schema: openApiSchema(sourceResource) })
  async add(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(notebookParams)) params: z.output<typeof notebookParams>,
    @Query(new ZodValidationPipe(sourceQuery)) query: z.output<typeof sourceQuery>,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SourceResource> {
    return this.handle(user, params.notebookId, undefined, query, request, response);
  }

  @Put(':notebookId/sources/:sourceId')
  @UseInterceptors(SourceUploadInterceptor)
  @ApiOperation({
    summary: 'Replace a source’s content (new chunks and chunk ids; jobs created before keep their snapshot).',
    requestBody: sourceRequestBody,
  })
  @ApiZodParams(notebookSourceParams)
  @ApiZodQuery(sourceQuery)
  @ApiCreatedResponse({ schema: openApiSchema(sourceResource) })
  @ApiAcceptedResponse({ schema: openApiSchema(sourceResource) })
  async replace(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(notebookSourceParams)) params: z.output<typeof notebookSourceParams>,
    @Query(new ZodValidationPipe(sourceQuery)) query: z.output<typeof sourceQuery>,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SourceResource> {
    return this.handle(user, params.notebookId, params.sourceId, query, request, response);
  }

  private async handle(
    user: AuthenticatedUser,
    notebookId: string,
    sourceId: string | undefined,
    query: z.output<typeof sourceQuery>,
    request: Request,
    response: Response,
  ): Promise<SourceResource> {
    const { input, title } = sourceOf(request);
    const result = await this.addSource.execute({
      userId: user.userId,
      notebookId,
      input,
      waitMs: query.wait === undefined ? this.config.sourceWaitMs : Math.round(query.wait * 1000),
      ...(sourceId === undefined ? {} : { sourceId }),
      ...(title === undefined ? {} : { title }),
    });
    switch (result.kind) {
      case 'indexed': {
        const d = result.data;
        response.status(201);
        return {
          source_id: d.sourceId,
          notebook_id: d.notebookId,
          status: 'indexed',
          title: d.title,
          kind: d.kind,
          chunk_ids: d.chunkIds,
          embedding_version: d.embeddingVersion,
          characters: d.characters,
          content_sha256: d.contentSha256,
        };
      }
      case 'rejected':
        throw new UnprocessableEntityException({ error: 'source_rejected', reason: result.data.reason, message: result.data.detail, source_id: result.data.sourceId });
      case 'pending':
        response.status(202);
        return { source_id: result.sourceId, notebook_id: notebookId, status: 'pending' };
    }
  }
}
