import { Body, ConflictException, Controller, Get, HttpCode, NotFoundException, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiForbiddenResponse,
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
import { ApiZodBody, ApiZodParams, ApiZodQuery, BEARER_SCHEME, openApiSchema } from '../http/openapi.js';
import { ZodValidationPipe } from '../http/zod-validation.pipe.js';
import { requireAdmin } from '../ops/admin-only.js';
import { type RunCursor, RunProjectionStore } from '../projection/run-projection.store.js';
import { RunTransitionStore } from '../projection/run-transition.store.js';
import { CancelRunHandler } from './cancel-run/cancel-run.handler.js';
import { RunEventsStream } from './run-events/run-events.stream.js';
import { RunResources } from './run-resources.js';
import {
  cancelAccepted,
  cancelRefused,
  cancelRunBody,
  cancelRunBodyDoc,
  encodeCursor,
  errorBody,
  listRunsQuery,
  resolveWithinBudget,
  RUN_LIST_FULL_PAGE_BYTES,
  runIdParams,
  runPage,
  runResource,
  runTimeline,
  toRunSummary,
  toRunTransitionResource,
  validationErrorBody,
} from './runs.schemas.js';

/** How long the event stream waits for a just-accepted run to reach the projection (its first event in flight). */
const PROJECTION_GRACE_MS = 5_000;

const notFound = (): NotFoundException => new NotFoundException({ error: 'not_found', message: 'no such run' });

/** The caller's runs: read from the gateway's projection; commands go to the coordinator. */
@ApiTags('runs')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@ApiBadRequestResponse({ description: 'Invalid input; `issues` name the fields.', schema: openApiSchema(validationErrorBody) })
@Controller('runs')
export class RunsController {
  constructor(
    private readonly runs: RunProjectionStore,
    private readonly transitions: RunTransitionStore,
    private readonly cancelRun: CancelRunHandler,
    private readonly eventStream: RunEventsStream,
    private readonly resources: RunResources,
  ) {}

  @Get()
  @ApiOperation({
    summary: "The caller's runs, newest first (keyset pagination), as summaries unless `view=full`.",
    description:
      'Filters: type, state, creation time range (`from`, `to`), run id prefix (`q`); `user` (admin role) lists another user\'s runs or everyone\'s (`*`). ' +
      "Each item is the run without its workflow view (`view=summary`, the default); `GET /runs/{id}` answers one run whole. " +
      '`view=full` gives each item as `GET /runs/{id}` does — the list as it was before summaries; such a page ends early rather than pass 1 MB of JSON (`nextCursor` continues it).',
  })
  @ApiForbiddenResponse({ description: '`user` given without the `admin` role.', schema: openApiSchema(errorBody) })
  @ApiZodQuery(listRunsQuery)
  @ApiOkResponse({ schema: openApiSchema(runPage) })
  async list(
    @CurrentUser() user: AuthenticatedUser,
    @Query(new ZodValidationPipe(listRunsQuery)) query: z.output<typeof listRunsQuery>,
  ): Promise<z.output<typeof runPage>> {
    // Another user's runs, or everyone's (`*`): the operations view, admin role only.
    if (query.user !== undefined) requireAdmin(user);
    const userId = query.user === undefined ? user.userId : query.user === '*' ? undefined : query.user;
    const listQuery = {
      ...(userId === undefined ? {} : { userId }),
      limit: query.limit,
      ...(query.from === undefined ? {} : { createdFrom: new Date(query.from) }),
      ...(query.to === undefined ? {} : { createdBefore: new Date(query.to) }),
      ...(query.q === undefined ? {} : { runIdPrefix: query.q }),
      ...(query.type === undefined ? {} : { type: query.type }),
      ...(query.state === undefined ? {} : { state: query.state }),
      ...(query.cursor === undefined ? {} : { after: query.cursor }),
    };
    const nextCursorOf = (next: RunCursor | undefined) => (next === undefined ? {} : { nextCursor: encodeCursor(next) });
    if (query.view === 'full') {
      // Each run as `GET /runs/{id}` has it: a paper search's collections read whole from their stored lists.
      const page = await this.runs.list(listQuery);
      const { kept, cut } = await resolveWithinBudget(page.items, (run) => this.resources.of(run), RUN_LIST_FULL_PAGE_BYTES);
      // Cut short: the next page starts after the last item served (a keyset cursor is that item's position).
      const last = kept.at(-1);
      const next = cut && last !== undefined ? { createdAt: new Date(last.createdAt), runId: last.runId } : page.next;
      return { items: kept, ...nextCursorOf(next) };
    }
    // Summaries: no view is read from PostgreSQL, and no stored paper list is read.
    const page = await this.runs.listSummaries(listQuery);
    return { items: page.items.map(toRunSummary), ...nextCursorOf(page.next) };
  }

  @Get(':id')
  @ApiOperation({
    summary: 'One run: state, terminal, attempt, view, timestamps.',
    description:
      "`view` is the workflow's public view; for `retrieve_or_generate` it is spec 01's WorkflowResult plus `state`; " +
      "a `paper_search`'s collections list every paper (read from the stored collection, as `GET /paper-searches/{id}` does).",
  })
  @ApiZodParams(runIdParams)
  @ApiOkResponse({ schema: openApiSchema(runResource) })
  @ApiNotFoundResponse({ description: 'No such run among the caller’s.', schema: openApiSchema(errorBody) })
  async get(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(runIdParams)) params: z.output<typeof runIdParams>,
  ): Promise<z.output<typeof runResource>> {
    const run = await this.runs.findForUser(params.id, user.userId);
    if (run === undefined) throw notFound();
    return this.resources.of(run);
  }

  @Get(':id/transitions')
  @ApiOperation({
    summary: "A run's timeline: every state change, oldest first.",
    description: 'From the run events the gateway projects (`RunStateChanged`): state before and after, the step that caused it, the attempt.',
  })
  @ApiZodParams(runIdParams)
  @ApiOkResponse({ schema: openApiSchema(runTimeline) })
  @ApiNotFoundResponse({ description: 'No such run among the caller’s.', schema: openApiSchema(errorBody) })
  async timeline(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(runIdParams)) params: z.output<typeof runIdParams>,
  ): Promise<z.output<typeof runTimeline>> {
    const run = await this.runs.findForUser(params.id, user.userId);
    if (run === undefined) throw notFound();
    const transitions = await this.transitions.forRun(run.runId);
    return { runId: run.runId, items: transitions.map(toRunTransitionResource) };
  }

  @Get(':id/events')
  @ApiOperation({
    summary: 'Server-sent events of one run.',
    description:
      'The current state first, then every change (`event: state`, `id: <version>`, `data: <run>`), ' +
      'heartbeat comments, and the end of the stream after a terminal state. Send `Last-Event-ID` to resume.',
  })
  @ApiProduces('text/event-stream')
  @ApiZodParams(runIdParams)
  @ApiOkResponse({ description: 'A `text/event-stream` of run states.', schema: openApiSchema(runResource) })
  @ApiNotFoundResponse({ description: 'No such run among the caller’s.', schema: openApiSchema(errorBody) })
  async events(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(runIdParams)) params: z.output<typeof runIdParams>,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    // A run accepted a moment ago may not be projected yet (its first event is on its way): a client
    // that opens the stream right after submitting waits for it briefly instead of getting a 404.
    const streamed = await this.eventStream.stream({ runId: params.id, userId: user.userId, graceMs: PROJECTION_GRACE_MS }, request, response);
    if (!streamed) throw notFound();
  }

  @Post(':id/cancel')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Cancel a run.',
    description:
      'Sends `CancelRun` to the coordinator and waits a few seconds for its answer: 202 `cancelled` once the run ' +
      'is in a terminal state, 202 `pending` if no answer came in time, 409 when the workflow refuses it.',
  })
  @ApiZodParams(runIdParams)
  @ApiZodBody(cancelRunBodyDoc, { required: false, parsedBy: cancelRunBody, examples: { withReason: { reason: 'Submitted the wrong problem.' }, none: {} } })
  @ApiAcceptedResponse({ schema: openApiSchema(cancelAccepted) })
  @ApiConflictResponse({ description: 'Refused by the workflow (e.g. illegal_transition, terminal).', schema: openApiSchema(cancelRefused) })
  @ApiNotFoundResponse({ description: 'No such run among the caller’s.', schema: openApiSchema(errorBody) })
  async cancel(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(runIdParams)) params: z.output<typeof runIdParams>,
    @Body(new ZodValidationPipe(cancelRunBody)) body: z.output<typeof cancelRunBody>,
  ): Promise<z.output<typeof cancelAccepted>> {
    const result = await this.cancelRun.execute({
      runId: params.id,
      userId: user.userId,
      ...(body.reason === undefined ? {} : { reason: body.reason }),
    });
    switch (result.kind) {
      case 'notFound':
        throw notFound();
      case 'refused': {
        const refusal: z.output<typeof cancelRefused> = {
          error: 'cancel_refused',
          reason: result.reason,
          detail: result.detail,
          state: result.state,
        };
        throw new ConflictException(refusal);
      }
      case 'cancelled':
        return { runId: params.id, status: 'cancelled', state: result.state, terminal: true };
      case 'pending':
        return { runId: params.id, status: 'pending', state: result.state, terminal: false };
    }
  }
}
