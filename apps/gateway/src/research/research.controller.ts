import { randomUUID } from 'node:crypto';
import {
  BadRequestException,
  Body,
  ConflictException,
  Controller,
  Get,
  Headers,
  HttpCode,
  HttpException,
  HttpStatus,
  NotFoundException,
  Param,
  Post,
  Res,
  ServiceUnavailableException,
  UnprocessableEntityException,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import {
  KEYED_RESEARCH_PROVIDERS,
  providersNeedingKeys,
  RESEARCH_INPUTS,
  RESEARCH_LIMITS,
  type ResearchDraftInput,
  type ResearchProvider,
  type ResearchView,
  researchView,
  SUBSCRIPTION_TIERS,
} from '@openpaw/contracts';
import type { Response } from 'express';
import type { z } from 'zod';
import { AdmissionControl } from '../admission/admission-control.js';
import { tierOf as admissionTierOf } from '../admission/admission-limits.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../auth/tokens.js';
import { idempotencyKeyOf } from '../http/idempotency-key-header.js';
import { ApiZodBody, ApiZodParams, BEARER_SCHEME, openApiSchema } from '../http/openapi.js';
import { ZodValidationPipe } from '../http/zod-validation.pipe.js';
import type { RunProjection } from '../projection/run-projection.store.js';
import { errorBody, validationErrorBody } from '../runs/runs.schemas.js';
import { type InputOutcome, ResearchRuns } from './handlers/research-runs.js';
import { ProviderKeys, type UserKeys } from './keys/provider-keys.js';
import { conflictBody, confirmBody, createDraftBody, missingKeysBody, researchIdParams, type ResearchResponse, researchResponse, startResearchBody } from './research.schemas.js';

const notFound = (): NotFoundException => new NotFoundException({ error: 'not_found', message: 'no such research' });

function conflict(status: string, message: string, reason?: string): ConflictException {
  const body: z.output<typeof conflictBody> = { error: 'conflict', message, status, ...(reason === undefined ? {} : { reason }) };
  return new ConflictException(body);
}

function missingKeys(providers: readonly (typeof KEYED_RESEARCH_PROVIDERS)[number][]): BadRequestException {
  const body: z.output<typeof missingKeysBody> = {
    error: 'missing_api_keys',
    message: `no API key for ${providers.join(', ')}: add it with PUT /research/keys/{provider}`,
    providers: [...providers],
  };
  return new BadRequestException(body);
}

function refused(outcome: Extract<InputOutcome, { kind: 'refused' }>, status: string): HttpException {
  // The saga refuses an input its state does not take (the projection read here may be a moment behind).
  const wrongState = /is not possible while the research is (\w+)/.exec(outcome.detail);
  if (wrongState !== null) return conflict(wrongState[1] ?? status, outcome.detail, 'wrong_state');
  switch (outcome.reason) {
    case 'invalid_input':
      return status === 'draft' ? new UnprocessableEntityException({ error: 'refused', reason: outcome.reason, message: outcome.detail }) : conflict(status, outcome.detail, outcome.reason);
    case 'unknown_workflow':
      return new ServiceUnavailableException({ error: 'unavailable', message: 'the research workflow is not deployed' });
    default:
      return conflict(status, outcome.detail, outcome.reason);
  }
}

function requireKeys(keys: UserKeys, providers: readonly ResearchProvider[]): void {
  const missing = keys.missing(providers);
  if (missing.length > 0) throw missingKeys(missing);
}

const tierOf = (user: AuthenticatedUser): (typeof SUBSCRIPTION_TIERS)[number] =>
  (SUBSCRIPTION_TIERS as readonly string[]).includes(user.tier ?? '') ? (user.tier as (typeof SUBSCRIPTION_TIERS)[number]) : 'free';

/**
 * Spec 05's research API. Reads are the saga's view from the gateway's projection (plus the spec's
 * UI mapping); writes start the `research` workflow or send it a human input and wait briefly for
 * its answer. Progress, per leg, is the run's SSE stream: `GET /runs/{id}/events`.
 */
@ApiTags('research')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@ApiBadRequestResponse({ description: 'Invalid input (`issues` name the fields), or `missing_api_keys` naming the providers.', schema: openApiSchema(validationErrorBody.or(missingKeysBody)) })
@Controller('research')
export class ResearchController {
  constructor(
    private readonly research: ResearchRuns,
    private readonly keys: ProviderKeys,
    private readonly admission: AdmissionControl,
  ) {}

  @Post('draft')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a research draft (spec 05 Phase 1).',
    description:
      'Status `draft`. The title is the user’s, else generated from the prompt (Gemini with the caller’s key, else a deterministic fallback, shown at once). ' +
      '`selectedLlms` defaults to every provider the caller has a key for plus `local` (the offline extractive researcher); `synthesisLlm` to `gemini` with a Gemini key, else `local`. ' +
      'Send `Idempotency-Key` to make a retried request land on the same draft.',
  })
  @ApiHeader({ name: 'Idempotency-Key', required: false })
  @ApiZodBody(createDraftBody, { examples: { prompt: { prompt: 'How do C4 plants concentrate CO2 around RuBisCO?', selectedLlms: ['local'] } } })
  @ApiCreatedResponse({ schema: openApiSchema(researchResponse) })
  async createDraft(
    @CurrentUser() user: AuthenticatedUser,
    @Body(new ZodValidationPipe(createDraftBody)) body: z.output<typeof createDraftBody>,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
  ): Promise<ResearchResponse> {
    const keys = await this.keys.read(user.userId);
    const defaults = this.defaults(keys);
    const selectedLlms = body.selectedLlms ?? defaults.selectedLlms;
    const synthesisLlm = body.synthesisLlm ?? defaults.synthesisLlm;
    const input: ResearchDraftInput = {
      title: body.title ?? null,
      prompt: body.prompt,
      selectedLlms,
      synthesisLlm,
      externalReports: body.externalReports ?? [],
      keys: keys.sealedFor([...selectedLlms, synthesisLlm, 'gemini']),
      start: false,
      subscriptionTier: tierOf(user),
    };
    return this.created(await this.research.create(user.userId, this.keyOf(idempotencyKey), input), 'draft');
  }

  @Post()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Start a research (spec 05: draft → processing).',
    description:
      'With `draftId`, starts that draft (fields given here replace the draft’s); without, creates and starts one. Validation: at least one LLM, and an API key ' +
      'for each selected keyed provider, and for the synthesis provider when a synthesis can come (two or more LLMs, or any external report) (400 `missing_api_keys` naming them). ' +
      'A run with one LLM and no external report is never synthesised: it completes as soon as its leg does, with its report in `llmResults` and no share page. ' +
      'A rejected key fails the leg (`errorReason` `auth`); when it fails the run, `errorReason` is `auth` and `error` says to update the key, then retry. 409 when the draft is no longer a draft. ' +
      'Then one leg per provider runs; follow them on `GET /runs/{id}/events` or `GET /research/{id}`. ' +
      'Admission control as for `POST /problems`: over the caller’s rate or in-flight limit (by tier), or while the platform is busy, 429 with `Retry-After` and nothing starts.',
  })
  @ApiHeader({ name: 'Idempotency-Key', required: false })
  @ApiZodBody(startResearchBody, {
    examples: {
      // Every keyed provider needs the caller's stored key; `local` needs none.
      newResearch: { prompt: 'Compare the light-dependent reactions in C3 and C4 plants.', title: 'C3 vs C4 photosynthesis', selectedLlms: ['local'], synthesisLlm: 'local' },
      withReport: { prompt: 'What limits the efficiency of photosystem II?', selectedLlms: ['local'], externalReports: [{ title: 'Notes', content: 'Photosystem II splits water; its D1 protein is damaged by light.' }] },
    },
  })
  @ApiAcceptedResponse({ schema: openApiSchema(researchResponse) })
  @ApiNotFoundResponse({ description: 'No such draft among the caller’s.', schema: openApiSchema(errorBody) })
  @ApiConflictResponse({ description: 'The draft was already started (or ended).', schema: openApiSchema(conflictBody) })
  @ApiTooManyRequestsResponse({ description: 'Over the caller’s rate or in-flight limit, or the platform is busy: `Retry-After` says when to try again.', schema: openApiSchema(errorBody) })
  async start(
    @CurrentUser() user: AuthenticatedUser,
    @Body(new ZodValidationPipe(startResearchBody)) body: z.output<typeof startResearchBody>,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ResearchResponse> {
    if (body.draftId !== undefined) {
      const run = await this.research.find(user.userId, body.draftId);
      if (run === undefined) throw notFound();
      const draft = this.viewOf(run);
      if (draft.status !== 'draft') throw conflict(draft.status, `research ${run.runId} is ${draft.status}, not a draft`);
      const selectedLlms = body.selectedLlms ?? draft.selectedLlms;
      const synthesisLlm = body.synthesisLlm ?? draft.synthesisLlm;
      const keys = await this.keys.read(user.userId);
      requireKeys(keys, providersNeedingKeys({ selectedLlms, synthesisLlm, externalReports: body.externalReports ?? draft.externalReports }));
      await this.admit(user, run.runId, response);
      const payload = {
        ...(body.prompt === undefined ? {} : { prompt: body.prompt }),
        ...(body.title === undefined ? {} : { title: body.title }),
        ...(body.selectedLlms === undefined ? {} : { selectedLlms: body.selectedLlms }),
        ...(body.synthesisLlm === undefined ? {} : { synthesisLlm: body.synthesisLlm }),
        ...(body.externalReports === undefined ? {} : { externalReports: body.externalReports }),
        keys: keys.sealedFor([...selectedLlms, synthesisLlm, 'gemini']),
      };
      return this.answered(await this.research.input(run, user.userId, RESEARCH_INPUTS.start, payload), run);
    }
    const keys = await this.keys.read(user.userId);
    const defaults = this.defaults(keys);
    const selectedLlms = body.selectedLlms ?? defaults.selectedLlms;
    const synthesisLlm = body.synthesisLlm ?? defaults.synthesisLlm;
    requireKeys(keys, providersNeedingKeys({ selectedLlms, synthesisLlm, externalReports: body.externalReports ?? [] }));
    const key = this.keyOf(idempotencyKey);
    const runId = this.research.runIdOf(user.userId, key);
    // A repeated request (same Idempotency-Key) is its existing run: answered, never limited.
    if ((await this.research.find(user.userId, runId)) === undefined) await this.admit(user, runId, response);
    const input: ResearchDraftInput = {
      title: body.title ?? null,
      prompt: body.prompt ?? '',
      selectedLlms,
      synthesisLlm,
      externalReports: body.externalReports ?? [],
      keys: keys.sealedFor([...selectedLlms, synthesisLlm, 'gemini']),
      start: true,
      subscriptionTier: tierOf(user),
    };
    return this.created(await this.research.create(user.userId, key, input), 'processing');
  }

  @Get(':id')
  @ApiOperation({
    summary: 'One research: spec 05’s fields and the card to show.',
    description:
      '`status`, `llmResults` (per-leg `pending` / `processing` / `completed` / `failed` with result or error), `synthesizedResult` with `synthesisAttributions` ' +
      '(which source each part rests on), `partialFailure`, `retryCount`, `shareInfo` (signed, expiring URL of the report page), `error`; `ui` is the spec’s status → UI mapping.',
  })
  @ApiZodParams(researchIdParams)
  @ApiOkResponse({ schema: openApiSchema(researchResponse) })
  @ApiNotFoundResponse({ description: 'No such research among the caller’s.', schema: openApiSchema(errorBody) })
  async get(@CurrentUser() user: AuthenticatedUser, @Param(new ZodValidationPipe(researchIdParams)) params: z.output<typeof researchIdParams>): Promise<ResearchResponse> {
    const run = await this.research.find(user.userId, params.id);
    if (run === undefined) throw notFound();
    return this.research.response(run);
  }

  @Post(':id/confirm')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Decide at the human gate (spec 05 Phase 5): proceed, retry or cancel.',
    description:
      '`proceed`: synthesis with the successful results only; `retry`: re-run the failed providers (at most 2 retries; past that the research fails with ' +
      '"Max retries exceeded"); `cancel`: failed, "Cancelled by user". 409 unless the research is `awaiting_confirmation`.',
  })
  @ApiZodParams(researchIdParams)
  @ApiZodBody(confirmBody, { examples: { proceed: { action: 'proceed' }, retry: { action: 'retry' }, cancel: { action: 'cancel' } } })
  @ApiOkResponse({ schema: openApiSchema(researchResponse) })
  @ApiNotFoundResponse({ description: 'No such research among the caller’s.', schema: openApiSchema(errorBody) })
  @ApiConflictResponse({ description: 'Not awaiting confirmation.', schema: openApiSchema(conflictBody) })
  async confirm(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(researchIdParams)) params: z.output<typeof researchIdParams>,
    @Body(new ZodValidationPipe(confirmBody)) body: z.output<typeof confirmBody>,
  ): Promise<ResearchResponse> {
    const run = await this.research.find(user.userId, params.id);
    if (run === undefined) throw notFound();
    const view = this.viewOf(run);
    if (view.status !== 'awaiting_confirmation') throw conflict(view.status, `confirm needs a research awaiting confirmation; this one is ${view.status}`);
    const payload = body.action === 'retry' ? { keys: await this.retryKeys(user.userId, view) } : {};
    return this.answered(await this.research.input(run, user.userId, RESEARCH_INPUTS[body.action], payload), run);
  }

  @Post(':id/retry')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Retry a failed research (spec 05 Phase 6).',
    description:
      '`failed` with failed LLMs: re-run them (`retrying` → processing); with a synthesis error: re-run the synthesis; with nothing to retry: `completed` (idempotent). ' +
      '409 in any other status, after 2 retries ("max retries"), and for a research its user cancelled (create a new one).',
  })
  @ApiZodParams(researchIdParams)
  @ApiAcceptedResponse({ schema: openApiSchema(researchResponse) })
  @ApiNotFoundResponse({ description: 'No such research among the caller’s.', schema: openApiSchema(errorBody) })
  @ApiConflictResponse({ description: 'Not failed, retried twice already, or cancelled by its user.', schema: openApiSchema(conflictBody) })
  async retry(@CurrentUser() user: AuthenticatedUser, @Param(new ZodValidationPipe(researchIdParams)) params: z.output<typeof researchIdParams>): Promise<ResearchResponse> {
    const run = await this.research.find(user.userId, params.id);
    if (run === undefined) throw notFound();
    const view = this.viewOf(run);
    if (view.status !== 'failed') throw conflict(view.status, `only a failed research can be retried; this one is ${view.status}`);
    if (view.errorKind === 'cancelled') throw conflict(view.status, 'cancelled by user: create a new research', 'cancelled');
    if (view.llmResults.some((r) => r.status === 'failed') && view.retryCount >= RESEARCH_LIMITS.maxRetries) {
      throw conflict(view.status, `max retries (${RESEARCH_LIMITS.maxRetries}) reached: create a new research`, 'max_retries');
    }
    return this.answered(await this.research.input(run, user.userId, RESEARCH_INPUTS.retry, { keys: await this.retryKeys(user.userId, view) }), run);
  }

  /** Admission control at the edge (flow control): a start over the caller's limits is refused with 429 and Retry-After. */
  private async admit(user: AuthenticatedUser, runId: string, response: Response): Promise<void> {
    const tier = admissionTierOf(user.tier);
    const decision = await this.admission.admit(user.userId, tier);
    if (!decision.admitted) {
      response.setHeader('Retry-After', String(decision.retryAfterSeconds));
      throw new HttpException(
        { error: 'too_many_requests', reason: decision.reason, message: decision.detail, retry_after_seconds: decision.retryAfterSeconds },
        HttpStatus.TOO_MANY_REQUESTS,
      );
    }
    this.admission.started(runId, user.userId, tier);
  }

  private viewOf(run: RunProjection): ResearchView {
    return researchView.parse(run.view);
  }

  /** The request's `Idempotency-Key` as every starting route reads it; without one, a key of its own (a new run). */
  private keyOf(header: string | undefined): string {
    return idempotencyKeyOf(header) ?? randomUUID();
  }

  /** Spec: "selectedLlms: default all available", "synthesisLlm: default google". */
  private defaults(keys: UserKeys): { selectedLlms: ResearchProvider[]; synthesisLlm: ResearchProvider } {
    const have = keys.providers();
    return { selectedLlms: [...KEYED_RESEARCH_PROVIDERS.filter((p) => have.includes(p)), 'local'], synthesisLlm: have.includes('gemini') ? 'gemini' : 'local' };
  }

  /** The current keys of what a retry re-runs (the user may have replaced a rejected key). */
  private retryKeys(userId: string, view: ResearchView) {
    return this.keys.sealedFor(userId, [...view.llmResults.filter((r) => r.status === 'failed').map((r) => r.provider), view.synthesisLlm]);
  }

  private created(outcome: InputOutcome & { readonly runId: string }, expected: string): ResearchResponse {
    switch (outcome.kind) {
      case 'applied':
        return this.research.response(outcome.run);
      case 'refused':
        throw refused(outcome, 'draft');
      case 'pending':
        if (outcome.run !== undefined) return this.research.response(outcome.run);
        throw new ServiceUnavailableException({ error: 'pending', message: `research ${outcome.runId} was accepted but is not visible yet (expected ${expected}); GET /research/${outcome.runId} shortly` });
    }
  }

  private answered(outcome: InputOutcome, before: RunProjection): ResearchResponse {
    switch (outcome.kind) {
      case 'applied':
        return this.research.response(outcome.run);
      case 'refused':
        throw refused(outcome, this.viewOf(before).status);
      case 'pending':
        return this.research.response(outcome.run ?? before);
    }
  }
}
