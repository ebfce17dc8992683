import {
  BadRequestException,
  Body,
  ConflictException,
  Controller,
  Get,
  Headers,
  HttpException,
  HttpStatus,
  NotFoundException,
  Param,
  Post,
  Query,
  Res,
  UnprocessableEntityException,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { PAPER_SEARCH, paperSearchView, publicPaperSearchView } from '@openpaw/contracts';
import type { Response } from 'express';
import { z } from 'zod';
import { CurrentUser } from '../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../auth/tokens.js';
import { ApiZodBody, ApiZodParams, ApiZodQuery, BEARER_SCHEME, openApiSchema } from '../http/openapi.js';
import { idempotencyKeyOf } from '../http/idempotency-key-header.js';
import { type ValidationErrorBody, ZodValidationPipe } from '../http/zod-validation.pipe.js';
import { DEFAULT_SUBSCRIPTION_TIER } from '../problems/problems.controller.js';
import type { RunProjection } from '../projection/run-projection.store.js';
import { RunProjectionStore } from '../projection/run-projection.store.js';
import { errorBody, validationErrorBody } from '../runs/runs.schemas.js';
import { DecideCheckpointHandler } from './decide/decide-checkpoint.handler.js';
import { exportableCollection, exportCollection, runWithWholePapers, wholeCollection } from './export/collection-export.js';
import { StoredPaperLists } from './export/stored-paper-lists.js';
import {
  checkpointParams,
  createPaperSearchBody,
  decisionAccepted,
  decisionBody,
  exportQuery,
  linksOf,
  paperSearchAccepted,
  paperSearchIdParams,
  paperSearchResource,
  type PaperSearchResource,
  staleCheckpointBody,
} from './paper-searches.schemas.js';
import { StartPaperSearchHandler } from './start/start-paper-search.handler.js';

const notFound = (): NotFoundException => new NotFoundException({ error: 'not_found', message: 'no such paper search' });

/** The search as clients see it: the public view (no storage keys), parsed; undefined when the view is not a paper search's. */
function toResource(run: RunProjection): PaperSearchResource | undefined {
  const view = publicPaperSearchView.safeParse(run.view);
  if (!view.success) return undefined;
  return {
    ...view.data,
    runId: run.runId,
    terminal: run.terminal,
    attemptNo: run.attemptNo,
    createdAt: run.createdAt.toISOString(),
    updatedAt: run.updatedAt.toISOString(),
    links: linksOf(run.runId),
  };
}

/** Spec 04: paper searches with two human checkpoints, decided over HTTP; progress on `/runs/:id/events`. */
@ApiTags('paper-searches')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@ApiBadRequestResponse({ description: 'Invalid input; `issues` name the fields.', schema: openApiSchema(validationErrorBody) })
@Controller('paper-searches')
export class PaperSearchesController {
  constructor(
    private readonly runs: RunProjectionStore,
    private readonly start: StartPaperSearchHandler,
    private readonly decide: DecideCheckpointHandler,
    private readonly lists: StoredPaperLists,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'Start a paper search.',
    description:
      'Parses the query, builds a search strategy and (unless `strategyCheckpoint` is false or `autoApprove` is true) waits at checkpoint 1 ' +
      'for the strategy to be approved, edited or rejected; then searches the sources, deduplicates, scores and organises the papers and waits ' +
      'at checkpoint 2 (unless `autoApprove`). Rejections and edits iterate, up to `maxIterations` (default 5). ' +
      'Send an `Idempotency-Key` header to make a retried request the same search. Follow progress on `GET /runs/{runId}/events`.',
  })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'The same key (per user) is the same search.' })
  @ApiZodBody(createPaperSearchBody, {
    examples: {
      query: { query: 'light-dependent reactions of photosynthesis in C4 plants' },
      libraryOnly: { query: 'transformer models for protein structure prediction', options: { sources: ['library', 'arxiv'], maxIterations: 3, autoApprove: true } },
    },
  })
  @ApiOkResponse({ description: 'A search with this Idempotency-Key exists: its current state.', schema: openApiSchema(paperSearchResource) })
  @ApiAcceptedResponse({ description: 'Started: its state (or `INITIATED` if the coordinator has not answered yet).', schema: openApiSchema(paperSearchResource) })
  @ApiUnprocessableEntityResponse({ description: 'The coordinator refused the start (`start_refused`).', schema: openApiSchema(errorBody) })
  @ApiTooManyRequestsResponse({ description: 'Admission control: over the rate limit or the platform is busy; retry after `Retry-After` seconds.', schema: openApiSchema(errorBody) })
  async create(
    @CurrentUser() user: AuthenticatedUser,
    @Body(new ZodValidationPipe(createPaperSearchBody)) body: z.output<typeof createPaperSearchBody>,
    @Headers('idempotency-key') rawKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<PaperSearchResource | z.output<typeof paperSearchAccepted>> {
    const key = idempotencyKeyOf(rawKey);
    const result = await this.start.execute({
      userId: user.userId,
      subscriptionTier: user.tier ?? DEFAULT_SUBSCRIPTION_TIER,
      start: body,
      ...(key === undefined ? {} : { idempotencyKey: key }),
    });
    switch (result.kind) {
      case 'refused':
        throw new UnprocessableEntityException({ error: 'start_refused', reason: result.reason, message: result.detail });
      case 'overloaded':
        response.setHeader('Retry-After', String(result.refusal.retryAfterSeconds));
        throw new HttpException(
          { error: 'too_many_requests', reason: result.refusal.reason, message: result.refusal.detail, retry_after_seconds: result.refusal.retryAfterSeconds },
          HttpStatus.TOO_MANY_REQUESTS,
        );
      case 'started':
      case 'existing': {
        response.status(result.kind === 'existing' ? 200 : 202);
        response.setHeader('Location', linksOf(result.runId).self);
        const resource = result.run === undefined ? undefined : toResource(result.run);
        return resource ?? { runId: result.runId, state: 'INITIATED', status: 'running', links: linksOf(result.runId) };
      }
    }
  }

  @Get(':id')
  @ApiOperation({
    summary: 'One paper search: state, iteration, the open checkpoint with its payload, accumulated papers, the result.',
    description:
      '`checkpoint` is set while the search waits (`status: waiting`); decide it with `POST .../checkpoints/{checkpointId}/decision`. ' +
      'The collections (the result, the one under review) list every paper, read from the stored collection when one message could not carry them all; `metadata.cuts` says what the papers shown still lack.',
  })
  @ApiZodParams(paperSearchIdParams)
  @ApiOkResponse({ schema: openApiSchema(paperSearchResource) })
  @ApiNotFoundResponse({ description: 'No such paper search among the caller’s.', schema: openApiSchema(errorBody) })
  async get(@CurrentUser() user: AuthenticatedUser, @Param(new ZodValidationPipe(paperSearchIdParams)) params: z.output<typeof paperSearchIdParams>): Promise<PaperSearchResource> {
    const run = await this.runs.findForUser(params.id, user.userId);
    if (run?.workflowType !== PAPER_SEARCH) throw notFound();
    // Claim check: the collections' papers whole from the stored lists (a message, and the projected
    // view, carry as many as fit); the public view then leaves the storage keys out.
    const resource = toResource(await runWithWholePapers(run, this.lists));
    if (resource === undefined) throw notFound();
    return resource;
  }

  @Post(':id/checkpoints/:checkpointId/decision')
  @ApiOperation({
    summary: 'Decide the open checkpoint: approve, edit or reject.',
    description:
      'Checkpoint 1 (strategy_confirmation): `approve` searches the proposed strategy, `edit` searches `revisedData` (a SearchStrategy), ' +
      '`reject` iterates with `note` as feedback. Checkpoint 2 (result_review): `approve` completes (with `revisedData.markedRelevant` accumulated), ' +
      '`edit` iterates with `revisedData` (a UserFeedback: markedRelevant, markedIrrelevant, freeText), `reject` iterates with `note`. ' +
      'Papers marked irrelevant are never shown again. A paper marked relevant must be among the papers the review can keep (its collection message and the papers kept before): otherwise 400 naming it; the open review lists the papers shown that it cannot keep in `checkpoint.payload.unmarkablePaperIds`, before any decision. ' +
      'Answers once the search moved on (`applied`) or after a short wait (`pending`).',
  })
  @ApiZodParams(checkpointParams)
  @ApiZodBody(decisionBody, {
    examples: {
      approve: { action: 'approve' },
      reject: { action: 'reject', note: 'Too broad: only graph neural networks for molecules.' },
      feedback: { action: 'edit', revisedData: { markedRelevant: [], markedIrrelevant: [], freeText: 'More on message passing, less on images.' } },
    },
  })
  @ApiAcceptedResponse({ schema: openApiSchema(decisionAccepted) })
  @ApiConflictResponse({ description: 'The checkpoint is not the open one (already decided, a later one is open, or the search ended).', schema: openApiSchema(staleCheckpointBody) })
  @ApiNotFoundResponse({ description: 'No such paper search among the caller’s.', schema: openApiSchema(errorBody) })
  async decideCheckpoint(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(checkpointParams)) params: z.output<typeof checkpointParams>,
    @Body(new ZodValidationPipe(decisionBody)) body: z.output<typeof decisionBody>,
    @Res({ passthrough: true }) response: Response,
  ): Promise<z.output<typeof decisionAccepted>> {
    const result = await this.decide.execute({ runId: params.id, userId: user.userId, checkpointId: params.checkpointId, decision: body });
    switch (result.kind) {
      case 'notFound':
        throw notFound();
      case 'stale': {
        const stale: z.output<typeof staleCheckpointBody> = { error: 'stale_checkpoint', message: result.detail, openCheckpointId: result.openCheckpointId };
        throw new ConflictException(stale);
      }
      case 'invalid': {
        const invalid: ValidationErrorBody = { error: 'validation_failed', location: 'body', issues: [{ path: 'revisedData', message: result.detail }] };
        throw new BadRequestException(invalid);
      }
      case 'applied':
      case 'pending':
        response.status(202);
        return { runId: params.id, checkpointId: params.checkpointId, status: result.kind, state: result.state };
    }
  }

  @Get(':id/export')
  @ApiOperation({
    summary: "Export the search's collection as BibTeX, RIS or CSL-JSON.",
    description: 'The result once completed; while checkpoint 2 is open, the collection under review with the accumulated papers. 409 before the first collection.',
  })
  @ApiZodParams(paperSearchIdParams)
  @ApiZodQuery(exportQuery)
  @ApiProduces('application/x-bibtex', 'application/x-research-info-systems', 'application/vnd.citationstyles.csl+json')
  @ApiOkResponse({
    description:
      'The collection as a file (Content-Disposition: attachment). When limits cut the collection (papers left out, abstracts shortened), the `OpenPaw-Export-Notes` header says what, and a BibTeX file starts with `@comment` lines saying it too.',
  })
  @ApiConflictResponse({ description: 'No collection yet.', schema: openApiSchema(errorBody) })
  @ApiNotFoundResponse({ description: 'No such paper search among the caller’s.', schema: openApiSchema(errorBody) })
  async export(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(paperSearchIdParams)) params: z.output<typeof paperSearchIdParams>,
    @Query(new ZodValidationPipe(exportQuery)) query: z.output<typeof exportQuery>,
    @Res() response: Response,
  ): Promise<void> {
    const run = await this.runs.findForUser(params.id, user.userId);
    // The export reads the whole view, with the stored collection's reference clients never see.
    const parsed = run?.workflowType === PAPER_SEARCH ? paperSearchView.safeParse(run.view) : undefined;
    if (parsed?.success !== true) throw notFound();
    const view = parsed.data;
    const collection = exportableCollection(view);
    if (collection === undefined) throw new ConflictException({ error: 'no_collection', message: `the search has no collection yet (it is ${view.state})` });
    const source = await wholeCollection(collection, view.papersTrimmed, this.lists);
    const file = exportCollection(source.collection, query.format, source.papersTrimmed, source.cuts);
    // What the file lacks, for every format (RIS and CSL-JSON have no place for a file-wide note).
    if (file.notes.length > 0) response.setHeader('OpenPaw-Export-Notes', file.notes.join('; '));
    response
      .status(200)
      .setHeader('Content-Type', file.contentType)
      .setHeader('Content-Disposition', `attachment; filename="paper-search-${params.id}.${file.extension}"`)
      .send(file.body);
  }
}
