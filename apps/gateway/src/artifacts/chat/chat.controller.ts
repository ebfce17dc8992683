import { Body, Controller, GatewayTimeoutException, Get, Headers, type HttpException, HttpStatus, NotFoundException, Param, Post, Res, ServiceUnavailableException, UnprocessableEntityException } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiBadRequestResponse, ApiHeader, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags, ApiUnauthorizedResponse, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import type { z } from 'zod';
import { CurrentUser } from '../../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../../auth/tokens.js';
import { idempotencyKeyOf } from '../../http/idempotency-key-header.js';
import { ApiZodBody, ApiZodParams, BEARER_SCHEME, openApiSchema } from '../../http/openapi.js';
import { ZodValidationPipe } from '../../http/zod-validation.pipe.js';
import { errorBody, validationErrorBody } from '../../runs/runs.schemas.js';
import { artifactIdParams, artifactJobCreated, type ChatBody, chatBody, chatResponse } from '../artifacts.schemas.js';
import { RunProjectionStore } from '../../projection/run-projection.store.js';
import { routeIntent } from '../intent/intent-router.js';
import { artifactJobResponse, artifactJobResponseOf } from '../jobs/artifact-job-response.js';
import { type ArtifactJobOutcome, type CreatedArtifactJob, CreateArtifactJobHandler } from '../jobs/create-artifact-job.handler.js';
import { resolveOptions } from '../jobs/fingerprint.js';
import { AnswerChatHandler } from './answer-chat.handler.js';

/** Where a job is read (`GET /ai/artifact/{id}`): the 202's `Location`. */
const artifactJobPath = (jobId: string): string => `/ai/artifact/${jobId}`;

const notFound = (): NotFoundException => new NotFoundException({ error: 'not_found', message: 'no such artifact job' });

/**
 * A request that started no job: a snapshot refused at creation (unknown sources are the client's 404; a
 * failed capture is ours), an Idempotency-Key first used with another request (422), or a key whose job
 * is no longer kept (404).
 */
function jobRefused(outcome: Exclude<ArtifactJobOutcome, CreatedArtifactJob>): HttpException {
  switch (outcome.kind) {
    case 'refused':
      return outcome.snapshot.kind === 'unknown_sources'
        ? new NotFoundException({ error: 'unknown_sources', message: outcome.snapshot.error })
        : new ServiceUnavailableException({ error: 'snapshot_failed', message: outcome.snapshot.error });
    case 'key_reused':
      return new UnprocessableEntityException({
        error: 'idempotency_key_reused',
        message: `this Idempotency-Key was first sent with another request (message, session_id, source_ids or options differ); it names job ${outcome.jobId}. Send a new key for a new request`,
      });
    case 'key_forgotten':
      return new NotFoundException({ error: 'not_found', message: `the job this Idempotency-Key started (${outcome.jobId}) is no longer kept` });
  }
}

/** The 202's message: what happened to the request, in words. */
function jobCreatedMessage(job: CreatedArtifactJob): string {
  if (job.ended === true) return `Artifact generation job already ended (${job.status}). Job ID: ${job.jobId}`;
  if (job.existing) return `Artifact generation job already in progress. Job ID: ${job.jobId}`;
  if (job.snapshot === 'deferred') {
    return `Artifact generation job created; the artifacts service was slow, so the job captures its sources' snapshot as its first step. Job ID: ${job.jobId}`;
  }
  return `Artifact generation job created. Job ID: ${job.jobId}`;
}

/** Spec 02's API: chat with artifact mode, and artifact jobs. */
@ApiTags('ai')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@ApiBadRequestResponse({ description: 'Invalid input; `issues` name the fields.', schema: openApiSchema(validationErrorBody) })
@Controller('ai')
export class ChatController {
  constructor(
    private readonly createJob: CreateArtifactJobHandler,
    private readonly answerChat: AnswerChatHandler,
    private readonly runs: RunProjectionStore,
  ) {}

  @Post('chat')
  @ApiOperation({
    summary: 'Chat about a notebook, or ask for a study artifact (quiz, flashcards, summary).',
    description:
      'An intent router (rules) decides. An artifact request creates a job (202 `artifact_job_created`), idempotently: while a job with ' +
      'the same fingerprint (user, notebook, type, sorted sources, options) is active, that job is returned; after it ended, a new one is ' +
      'created. With an `Idempotency-Key`, the same key (per user) is the same job whatever its state: a retry after a 503 or a timeout ' +
      'is answered with the job it started, never a new one; the key sent with another request is refused (422 `idempotency_key_reused`). ' +
      'Follow it with `GET /ai/artifact/{job_id}` (the 202\'s `Location`) or `GET /runs/{job_id}/events`. A new job\'s ' +
      'retrieval snapshot is taken with the request; when the artifacts service does not answer in time the job is accepted all the ' +
      'same and takes it as its first step, as of the request\'s time (`snapshot: deferred`; sources indexed later are left out). ' +
      'Any other message is answered by the artifacts service from the notebook’s sources (200 `chat_response`; 504 when no answer came in time).',
  })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'Artifact mode: the same key from the same user is the same job, also after it ended.' })
  @ApiZodBody(chatBody, {
    examples: {
      question: { message: 'Where does the Calvin cycle take place?', session_id: 'biology-notes' },
      quiz: { message: 'Create a quiz on photosynthesis', session_id: 'biology-notes', options: { num_questions: 5, difficulty: 'medium' } },
    },
  })
  @ApiAcceptedResponse({
    description: 'Artifact mode: the job, accepted (its `StartRun` is durable); `Location` is `/ai/artifact/{job_id}`.',
    headers: { Location: { description: 'The job: `/ai/artifact/{job_id}`.', schema: { type: 'string' } } },
    schema: openApiSchema(artifactJobCreated),
  })
  @ApiNotFoundResponse({ description: 'Artifact mode: `unknown_sources`, a source id the notebook does not have; nothing was started.', schema: openApiSchema(errorBody) })
  @ApiServiceUnavailableResponse({ description: 'Artifact mode: `snapshot_failed`, the artifacts service could not capture the sources; nothing was started.', schema: openApiSchema(errorBody) })
  @ApiUnprocessableEntityResponse({ description: 'Artifact mode: `idempotency_key_reused`, the Idempotency-Key was first sent with another request; nothing was started.', schema: openApiSchema(errorBody) })
  @ApiOkResponse({ description: 'Chat mode: the answer.', schema: openApiSchema(chatResponse) })
  async chat(
    @CurrentUser() user: AuthenticatedUser,
    @Body(new ZodValidationPipe(chatBody)) body: ChatBody,
    @Headers('idempotency-key') rawKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<z.output<typeof artifactJobCreated> | z.output<typeof chatResponse>> {
    const intent = routeIntent(body.message);
    const idempotencyKey = idempotencyKeyOf(rawKey);
    if (intent.mode === 'artifact') {
      const job = await this.createJob.execute({
        userId: user.userId,
        notebookId: body.session_id,
        artifactType: intent.artifactType,
        content: body.message,
        sourceIds: body.source_ids ?? [],
        options: resolveOptions(intent.artifactType, intent.statedOptions, body.options),
        intentReason: intent.reason,
        ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      });
      if (job.kind !== 'created') throw jobRefused(job);
      response.status(HttpStatus.ACCEPTED);
      response.setHeader('Location', artifactJobPath(job.jobId));
      return {
        type: 'artifact_job_created',
        job_id: job.jobId,
        status: job.status,
        artifact_type: intent.artifactType,
        message: jobCreatedMessage(job),
        ...(job.snapshot === undefined ? {} : { snapshot: job.snapshot }),
      };
    }
    const abort = new AbortController();
    const onClose = (): void => {
      if (!response.writableFinished) abort.abort();
    };
    response.on('close', onClose);
    try {
      const result = await this.answerChat.execute({
        userId: user.userId,
        notebookId: body.session_id,
        message: body.message,
        sourceIds: body.source_ids ?? [],
        signal: abort.signal,
      });
      switch (result.kind) {
        case 'answered':
          response.status(HttpStatus.OK);
          return { type: 'chat_response', session_id: body.session_id, message: result.data.answer, citations: result.data.citations, model: result.data.model };
        case 'timeout':
          throw new GatewayTimeoutException({ error: 'chat_timeout', message: 'the artifacts service did not answer in time' });
        case 'failed':
          if (result.errorCode === 'unknown_sources') throw new UnprocessableEntityException({ error: 'unknown_sources', message: result.error });
          throw new ServiceUnavailableException({ error: result.errorCode, message: result.error });
      }
    } finally {
      response.off('close', onClose);
    }
  }

  @Get('artifact/:id')
  @ApiOperation({ summary: 'An artifact job: status, progress (0 → 20 → 60 → 90 → 100), and the result once completed (spec 02).' })
  @ApiZodParams(artifactIdParams)
  @ApiOkResponse({ schema: openApiSchema(artifactJobResponse) })
  @ApiNotFoundResponse({ description: 'No such artifact job among the caller’s.', schema: openApiSchema(errorBody) })
  async artifact(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(artifactIdParams)) params: z.output<typeof artifactIdParams>,
  ): Promise<z.output<typeof artifactJobResponse>> {
    const run = await this.runs.findForUser(params.id, user.userId);
    const job = run === undefined ? undefined : artifactJobResponseOf(run);
    if (job === undefined) throw notFound();
    return job;
  }
}
