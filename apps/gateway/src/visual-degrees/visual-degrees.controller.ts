import { randomUUID } from 'node:crypto';
import { Body, ConflictException, Controller, Get, Headers, HttpCode, HttpException, HttpStatus, NotFoundException, Param, Post, Req, Res } from '@nestjs/common';
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
} from '@nestjs/swagger';
import { VISUAL_DEGREES } from '@openpaw/contracts';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { AdmissionControl } from '../admission/admission-control.js';
import { tierOf } from '../admission/admission-limits.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../auth/tokens.js';
import { ApiZodBody, ApiZodParams, BEARER_SCHEME, openApiSchema } from '../http/openapi.js';
import { idempotencyKeyOf } from '../http/idempotency-key-header.js';
import { ZodValidationPipe } from '../http/zod-validation.pipe.js';
import { type RunProjection, RunProjectionStore } from '../projection/run-projection.store.js';
import { CancelRunHandler } from '../runs/cancel-run/cancel-run.handler.js';
import { cancelAccepted, cancelRefused, errorBody, runIdParams, toRunResource, validationErrorBody } from '../runs/runs.schemas.js';
import { RunSubmitter } from '../runs/submit/run-submitter.js';
import { EvidenceThumbnailLinks, evidenceThumbnailLink, evidenceThumbnailParams } from './evidence-thumbnails.js';
import { VisualDegreesEventsStream } from './visual-degrees-events.stream.js';
import { linksOf, visualDegreesAccepted, visualDegreesBody, visualDegreesRun, visualDegreesStreamFrame } from './visual-degrees.schemas.js';

/** The state a run is created in, reported until the coordinator reports the run itself. */
const INITIAL_STATE = 'INITIALIZING';
/** How long `POST /visual-degrees` waits for the coordinator to have started the run. */
const START_WAIT_MS = 5_000;
/** How long the event stream waits for a run this gateway admitted to reach the projection. */
const UNPROJECTED_WAIT_MS = 30_000;

const notFound = (): NotFoundException => new NotFoundException({ error: 'not_found', message: 'no such visual degrees run' });

/**
 * Spec 03 in the gateway: start a search for an evidence-verified visual chain between two persons,
 * read it, follow its evidence live (SSE) and cancel it. Runs are read from the gateway's projection;
 * the `visual_degrees` saga in the coordinator does the work.
 */
@ApiTags('visual-degrees')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@ApiBadRequestResponse({ description: 'Invalid input; `issues` name the fields.', schema: openApiSchema(validationErrorBody) })
@Controller('visual-degrees')
export class VisualDegreesController {
  constructor(
    private readonly submitter: RunSubmitter,
    private readonly runs: RunProjectionStore,
    private readonly admission: AdmissionControl,
    private readonly cancelRun: CancelRunHandler,
    private readonly eventStream: VisualDegreesEventsStream,
    private readonly thumbnails: EvidenceThumbnailLinks,
  ) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Find an evidence-verified visual chain between two persons (spec 03).',
    description:
      'Starts a `visual_degrees` run: at most 6 hops, each edge shown by an image where both persons are recognised at ≥ 80 %. ' +
      '`options` may lower the hop limit and set the budgets (search calls, recognition calls, LLM calls, runtime). ' +
      'The same `Idempotency-Key` from the same user answers with the same run. Follow it with `GET /visual-degrees/{id}/events`.',
  })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'The same key from the same user is the same run.' })
  @ApiZodBody(visualDegreesBody, {
    examples: {
      twoPersons: { from: 'Ada Lovelace', to: 'Charles Babbage' },
      withLimits: { from: 'Marie Curie', to: 'Albert Einstein', options: { maxHops: 3, strategy: 'meet_in_the_middle', maxRuntimeMs: 600_000 } },
    },
  })
  @ApiAcceptedResponse({ description: 'The run is started (or was, with this key).', schema: openApiSchema(visualDegreesAccepted) })
  @ApiTooManyRequestsResponse({ description: 'Admission control: over the tier\'s rate or in-flight limit, or the platform is busy. Retry after `Retry-After` seconds.', schema: openApiSchema(errorBody) })
  async start(
    @CurrentUser() user: AuthenticatedUser,
    @Body(new ZodValidationPipe(visualDegreesBody)) body: z.output<typeof visualDegreesBody>,
    @Headers('idempotency-key') rawKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<z.output<typeof visualDegreesAccepted>> {
    const key = idempotencyKeyOf(rawKey) ?? randomUUID();
    const { run, existing: known } = await this.submitter.lookup(VISUAL_DEGREES, user.userId, key);
    const { runId } = run;
    if (known === undefined) {
      const tier = tierOf(user.tier);
      const admission = await this.admission.admit(user.userId, tier);
      if (!admission.admitted) {
        response.setHeader('Retry-After', String(admission.retryAfterSeconds));
        throw new HttpException(
          { error: 'too_many_requests', reason: admission.reason, message: admission.detail, retry_after_seconds: admission.retryAfterSeconds },
          HttpStatus.TOO_MANY_REQUESTS,
        );
      }
      this.admission.started(runId, user.userId, tier);
      await this.submitter.submit({ run, input: body });
    }
    // Answer once the projection holds the run (bounded), so reading it or its events works at once.
    const current = known ?? (await this.runs.findWhen(runId, () => true, { userId: user.userId, graceMs: START_WAIT_MS }));
    response.setHeader('Location', linksOf(runId).self);
    return { runId, state: current?.state ?? INITIAL_STATE, terminal: current?.terminal ?? false, links: linksOf(runId) };
  }

  @Get(':id')
  @ApiOperation({
    summary: 'One visual degrees run: state, chain so far, budgets spent, its stream events, and the result or the reason for no path.',
  })
  @ApiZodParams(runIdParams)
  @ApiOkResponse({ schema: openApiSchema(visualDegreesRun) })
  @ApiNotFoundResponse({ description: 'No such visual degrees run among the caller’s.', schema: openApiSchema(errorBody) })
  async get(@CurrentUser() user: AuthenticatedUser, @Param(new ZodValidationPipe(runIdParams)) params: z.output<typeof runIdParams>): Promise<z.output<typeof visualDegreesRun>> {
    const run = await this.ownRun(params.id, user);
    return { ...toRunResource(run), links: linksOf(run.runId) };
  }

  @Get(':id/events')
  @ApiOperation({
    summary: 'Server-sent events of a visual degrees run.',
    description:
      'Spec 03\'s event types: `status` (progress), `evidence` (a verified edge: image, source page, both confidences), `path_update` ' +
      '(the chain so far), `final` (`{ path, edges, confidenceMap, graph, budgets, used }`: the budgets and what the run spent of them, and `world` when the local demo world was searched), ' +
      '`no_path` (the reason: hop limit, a budget, no candidates, `not_a_public_figure` (a person the celebrity recogniser never recognised in their own photos: only public figures are connected), `unknown_person` with the names the local demo world knows, or `person_taken_down` (A or B was taken down while the run searched)), ' +
      '`error` (sanitised, with its reason), `cancelled` (the owner cancelled). Each has `id: <seq>`; send `Last-Event-ID` to resume after it. The stream ends after the run does.',
  })
  @ApiProduces('text/event-stream')
  @ApiZodParams(runIdParams)
  @ApiOkResponse({ description: 'A `text/event-stream`; each frame’s `event`, `id` and JSON `data` as below.', schema: openApiSchema(visualDegreesStreamFrame) })
  @ApiNotFoundResponse({ description: 'No such visual degrees run among the caller’s.', schema: openApiSchema(errorBody) })
  async events(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(runIdParams)) params: z.output<typeof runIdParams>,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    await this.eventStream.stream(await this.ownRun(params.id, user, { waitIfAdmittedHere: true }), request, response);
  }

  @Get(':id/evidence/:thumbnail')
  @ApiOperation({
    summary: 'A signed, short-lived URL of an evidence image’s thumbnail of a visual degrees run.',
    description:
      'The thumbnail is a JPEG of at most 512 px a side, made by the service from the image it fetched (never loaded from the image’s host by the client). ' +
      '`thumbnail` is an evidence card’s `thumbnail` (or a `final` edge’s evidence image’s); only the run’s owner is given a URL, signed for that one thumbnail and that user ' +
      '(a GCS V4 signed URL, or the local store’s HMAC-signed `/v1/shared/<token>`), which expires after 5 minutes: an expired or altered URL is refused with 403 naming why. ' +
      'With the local store the response also sets an HttpOnly, SameSite=Strict holder cookie for the share route: the URL is served only to the browser that carries it (403 `share_link_not_holder` when replayed by another holder). ' +
      'A GCS V4 URL cannot be bound to its holder: it is a bearer URL for its 5 minutes. ' +
      'Credit the picture to its `sourcePageUrl`.',
  })
  @ApiZodParams(evidenceThumbnailParams)
  @ApiOkResponse({ description: 'The signed URL and its expiry.', schema: openApiSchema(evidenceThumbnailLink) })
  @ApiNotFoundResponse({ description: 'No such run among the caller’s, the run shows no such thumbnail, or it is no longer stored.', schema: openApiSchema(errorBody) })
  async evidenceThumbnail(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(evidenceThumbnailParams)) params: z.output<typeof evidenceThumbnailParams>,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<z.output<typeof evidenceThumbnailLink>> {
    const run = await this.ownRun(params.id, user);
    const signed = await this.thumbnails.sign(run.view, params.thumbnail, user.userId, request.secure);
    if (signed === undefined) throw new NotFoundException({ error: 'not_found', message: 'the run shows no such evidence thumbnail, or it is no longer stored' });
    if (signed.holderCookie !== undefined) response.append('Set-Cookie', signed.holderCookie);
    return signed.link;
  }

  @Post(':id/cancel')
  @HttpCode(202)
  @ApiOperation({ summary: 'Cancel a visual degrees run.', description: 'As `POST /runs/{id}/cancel`: 202 `cancelled` or `pending`, 409 when the run has already ended.' })
  @ApiZodParams(runIdParams)
  @ApiAcceptedResponse({ schema: openApiSchema(cancelAccepted) })
  @ApiConflictResponse({ description: 'Refused by the workflow (e.g. terminal).', schema: openApiSchema(cancelRefused) })
  @ApiNotFoundResponse({ description: 'No such visual degrees run among the caller’s.', schema: openApiSchema(errorBody) })
  async cancel(@CurrentUser() user: AuthenticatedUser, @Param(new ZodValidationPipe(runIdParams)) params: z.output<typeof runIdParams>): Promise<z.output<typeof cancelAccepted>> {
    await this.ownRun(params.id, user);
    const result = await this.cancelRun.execute({ runId: params.id, userId: user.userId, reason: 'cancelled by the user' });
    switch (result.kind) {
      case 'notFound':
        throw notFound();
      case 'refused':
        throw new ConflictException({ error: 'cancel_refused', reason: result.reason, detail: result.detail, state: result.state } satisfies z.output<typeof cancelRefused>);
      case 'cancelled':
        return { runId: params.id, status: 'cancelled', state: result.state, terminal: true };
      case 'pending':
        return { runId: params.id, status: 'pending', state: result.state, terminal: false };
    }
  }

  /**
   * The caller's visual degrees run, or 404. With `waitIfAdmittedHere`, a run this gateway admitted for
   * the caller that the projection does not show yet (a busy coordinator answers the start late) is
   * waited for, bounded: following a run right after starting it never meets a 404.
   */
  private async ownRun(runId: string, user: AuthenticatedUser, options: { readonly waitIfAdmittedHere?: boolean } = {}): Promise<RunProjection> {
    let run = await this.runs.findForUser(runId, user.userId);
    if (run === undefined && options.waitIfAdmittedHere === true && this.admission.admittedHere(runId, user.userId)) {
      run = await this.runs.findWhen(runId, () => true, { userId: user.userId, graceMs: UNPROJECTED_WAIT_MS });
    }
    if (run?.workflowType !== VISUAL_DEGREES) throw notFound();
    return run;
  }
}
