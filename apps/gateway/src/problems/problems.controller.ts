import {
  ConflictException,
  Controller,
  HttpException,
  HttpStatus,
  Post,
  ServiceUnavailableException,
  UnprocessableEntityException,
  Query,
  Req,
  Res,
  UnsupportedMediaTypeException,
  UseInterceptors,
  BadRequestException,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTooManyRequestsResponse,
  ApiTags,
  ApiUnauthorizedResponse,
  ApiUnprocessableEntityResponse,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { MAX_PROBLEM_IMAGE_PIXELS } from '@openpaw/contracts';
import type { z } from 'zod';
import { CurrentUser } from '../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../auth/tokens.js';
import { ApiZodQuery, BEARER_SCHEME, openApiSchema, validatedExamples } from '../http/openapi.js';
import { type ValidationErrorBody, ZodValidationPipe } from '../http/zod-validation.pipe.js';
import { errorBody, validationErrorBody } from '../runs/runs.schemas.js';
import { RunEtaEstimator } from './eta/run-eta.js';
import {
  problemJsonBody,
  problemJsonBodyDoc,
  problemMultipartDoc,
  problemMultipartFields,
  problemSubmission,
  type ProblemSubmission,
  submitProblemQuery,
  UPLOAD_FIELD,
} from './problems.schemas.js';
import { type ContentSensitivity, type ProblemContent, SubmitProblemHandler, type SubmitProblemResult } from './submit-problem/submit-problem.handler.js';
import { ProblemUploadInterceptor } from './upload/problem-upload.interceptor.js';
import { imageDimensions, megapixelsOf } from './upload/image-dimensions.js';
import { ACCEPTED_IMAGE_TYPES, sniffImageType } from './upload/image-upload.js';
import { RETRIEVE_OR_GENERATE, TERMINAL_STATUS_BY_STATE } from './workflow-result.js';

/** The tier of a token without a `tier` claim. */
export const DEFAULT_SUBSCRIPTION_TIER = 'free';
/** The state a run is created in (spec 01), reported until the coordinator reports the run itself. */
export const INITIAL_STATE = 'INITIATED';

/** The part multer leaves on the request (memory storage). */
interface UploadedImage {
  readonly buffer: Buffer;
  readonly size: number;
  readonly originalname: string;
}

function fileRefused(message: string): BadRequestException {
  const body: ValidationErrorBody = { error: 'validation_failed', location: 'body', issues: [{ path: UPLOAD_FIELD, message }] };
  return new BadRequestException(body);
}

/**
 * The coordinator refused the start: the input does not fit the workflow (422: e.g. a tier the
 * policy engine does not know), or the workflow is not deployed (503); anything else 409.
 */
export function startRefused(refusal: { readonly reason: string; readonly detail: string }): HttpException {
  const body = { error: 'start_refused', reason: refusal.reason, message: refusal.detail };
  switch (refusal.reason) {
    case 'invalid_input':
      return new UnprocessableEntityException(body);
    case 'unknown_workflow':
      return new ServiceUnavailableException(body);
    default:
      return new ConflictException(body);
  }
}

/** Reads the submitted content from a JSON body or a multipart upload (already parsed by the interceptor). */
export function problemInputOf(request: Request): { content: ProblemContent; intent: string; contentSensitivity: ContentSensitivity; confirmReading: boolean } {
  const contentType = request.headers['content-type'];
  if (request.is('multipart/form-data') === 'multipart/form-data') {
    const fields = new ZodValidationPipe(problemMultipartFields).transform(request.body ?? {}, { type: 'body' });
    const file = (request as Request & { file?: UploadedImage }).file;
    if (file === undefined) throw fileRefused(`an image file is required as multipart field "${UPLOAD_FIELD}"`);
    if (file.size === 0 || file.buffer.length === 0) throw fileRefused('the file is empty');
    const imageType = sniffImageType(file.buffer);
    if (imageType === undefined) {
      throw new UnsupportedMediaTypeException({
        error: 'unsupported_media_type',
        message: `the file is not an image of an accepted type (${ACCEPTED_IMAGE_TYPES.join(', ')})`,
        field: UPLOAD_FIELD,
      });
    }
    const dimensions = imageDimensions(file.buffer, imageType);
    if (dimensions !== undefined && dimensions.width * dimensions.height > MAX_PROBLEM_IMAGE_PIXELS) {
      throw fileRefused(
        `the image is ${dimensions.width}×${dimensions.height} pixels (${Math.round(megapixelsOf(dimensions))} MP); the largest accepted is ${MAX_PROBLEM_IMAGE_PIXELS / 1e6} MP`,
      );
    }
    const filename = file.originalname.length > 0 ? file.originalname : undefined;
    // A header that hides the size is charged as the largest image ingestion decodes.
    const megapixels = dimensions === undefined ? MAX_PROBLEM_IMAGE_PIXELS / 1e6 : megapixelsOf(dimensions);
    return {
      intent: fields.intent,
      contentSensitivity: fields.content_sensitivity,
      confirmReading: fields.confirm_reading,
      content: { kind: 'image', bytes: file.buffer, contentType: imageType, megapixels, ...(filename === undefined ? {} : { filename }) },
    };
  }
  if (contentType !== undefined && request.is('application/json') !== 'application/json') {
    throw new UnsupportedMediaTypeException({
      error: 'unsupported_media_type',
      message: 'send application/json ({ text } or { url }) or multipart/form-data with an image as "file"',
    });
  }
  const body = new ZodValidationPipe(problemJsonBody).transform(request.body, { type: 'body' });
  const content: ProblemContent = body.text !== undefined ? { kind: 'text', text: body.text } : { kind: 'url', url: body.url ?? '' };
  return { content, intent: body.intent, contentSensitivity: body.content_sensitivity, confirmReading: body.confirm_reading };
}

/** 429 with Retry-After: the submission was not accepted, and may be sent again after that many seconds. */
function overloaded(response: Response, refusal: SubmitProblemResult['overloaded'] & object): HttpException {
  response.setHeader('Retry-After', String(refusal.retryAfterSeconds));
  return new HttpException(
    { error: 'too_many_requests', reason: refusal.reason, message: refusal.detail, retry_after_seconds: refusal.retryAfterSeconds },
    HttpStatus.TOO_MANY_REQUESTS,
  );
}

/** Submitting problems: spec 01's RetrieveOrGenerate workflow behind one idempotent route. */
@ApiTags('problems')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@Controller('problems')
export class ProblemsController {
  constructor(
    private readonly submitProblem: SubmitProblemHandler,
    private readonly eta: RunEtaEstimator,
  ) {}

  @Post()
  @UseInterceptors(ProblemUploadInterceptor)
  @ApiOperation({
    summary: 'Submit a problem (text, URL or image) to be solved or retrieved.',
    description:
      'The same problem (normalised text, image bytes or URL) from the same user with the same intent is the same run: ' +
      'while it runs, this answers 202 with its state and an ETA; once it succeeded, 200 with the cached WorkflowResult ' +
      '(no re-run); after it failed, it is re-attempted (attempt_no + 1). `?wait=<seconds>` (max 60) answers when the run ' +
      'ends (200) or the wait is over (202). Follow progress with `GET /runs/{run_id}/events`.',
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: openApiSchema(problemJsonBodyDoc, 'input'),
          examples: validatedExamples(problemJsonBody, {
            text: { text: 'Solve for x: 2x + 3 = 11.' },
            url: { url: 'https://example.org/worksheets/quadratics.png', intent: 'solve' },
            sensitive: { text: 'A ball is thrown upwards at 12 m/s. How high does it rise?', content_sensitivity: 'sensitive' },
          }),
        },
        'multipart/form-data': {
          // Every form field as the schema says (intent, content_sensitivity, confirm_reading); the file as binary.
          schema: multipartSchema(),
          encoding: { file: { contentType: ACCEPTED_IMAGE_TYPES.join(', ') } },
        },
      },
    },
  })
  @ApiZodQuery(submitProblemQuery)
  @ApiOkResponse({ description: 'The run has ended: its WorkflowResult.', schema: openApiSchema(problemSubmission) })
  @ApiAcceptedResponse({ description: 'The run is started or still running: its state and an ETA.', schema: openApiSchema(problemSubmission) })
  @ApiBadRequestResponse({ description: 'Invalid input; `issues` name the fields.', schema: openApiSchema(validationErrorBody) })
  @ApiPayloadTooLargeResponse({ description: 'The image is larger than the upload limit (named in the message).', schema: openApiSchema(errorBody) })
  @ApiUnprocessableEntityResponse({ description: 'The coordinator refused the start (`start_refused`, with its reason).', schema: openApiSchema(errorBody) })
  @ApiUnsupportedMediaTypeResponse({ description: 'Neither JSON nor multipart, or the file is not an accepted image.', schema: openApiSchema(errorBody) })
  @ApiTooManyRequestsResponse({
    description:
      'Admission control: the user is over their tier\'s rate or in-flight limit, or the platform\'s critical backlog is full (`reason`). ' +
      'Nothing was started; send it again after `Retry-After` seconds.',
    schema: openApiSchema(errorBody),
  })
  async submit(
    @CurrentUser() user: AuthenticatedUser,
    @Query(new ZodValidationPipe(submitProblemQuery)) query: z.output<typeof submitProblemQuery>,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ProblemSubmission> {
    const { content, intent, contentSensitivity, confirmReading } = problemInputOf(request);
    const waitMs = Math.round((query.wait ?? 0) * 1000);
    const abort = new AbortController();
    const onClose = (): void => {
      if (!response.writableFinished) abort.abort();
    };
    if (waitMs > 0) response.on('close', onClose);
    try {
      const result = await this.submitProblem.execute({
        userId: user.userId,
        subscriptionTier: user.tier ?? DEFAULT_SUBSCRIPTION_TIER,
        intent,
        contentSensitivity,
        confirmReading,
        content,
        waitMs,
        signal: abort.signal,
      });
      if (result.refused !== undefined) throw startRefused(result.refused);
      if (result.overloaded !== undefined) throw overloaded(response, result.overloaded);
      const body = await this.describe(result);
      response.status(body.terminal ? 200 : 202);
      if (!body.terminal) response.setHeader('Location', body.links.run);
      return body;
    } finally {
      response.off('close', onClose);
    }
  }

  private async describe(result: SubmitProblemResult): Promise<ProblemSubmission> {
    const { runId, run } = result;
    const links = { run: `/runs/${runId}`, events: `/runs/${runId}/events`, solution: `/runs/${runId}/solution`, video: `/runs/${runId}/video` };
    if (run?.terminal === true) {
      return {
        run_id: runId,
        state: run.state,
        status: TERMINAL_STATUS_BY_STATE[run.state] ?? 'failed',
        terminal: true,
        attempt_no: run.attemptNo,
        result: { ...run.view, status: typeof run.view['status'] === 'string' ? run.view['status'] : (TERMINAL_STATUS_BY_STATE[run.state] ?? 'failed') },
        links,
      };
    }
    const eta = await this.eta.estimate(RETRIEVE_OR_GENERATE, run);
    return {
      run_id: runId,
      state: run?.state ?? INITIAL_STATE,
      status: 'running',
      terminal: false,
      attempt_no: result.attemptNo,
      eta_seconds: eta.seconds,
      eta_sample_size: eta.sampleSize,
      links,
    };
  }
}

/** The multipart body's schema: `problemMultipartDoc`'s fields, with the file as binary. */
function multipartSchema(): Record<string, unknown> {
  const schema = openApiSchema(problemMultipartDoc, 'input') as { properties?: Record<string, unknown> };
  return { ...schema, properties: { ...schema.properties, file: { type: 'string', format: 'binary' } } };
}
