import { Body, Controller, Get, HttpCode, Inject, NotFoundException, Param, Post, Query, UnprocessableEntityException } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { z } from 'zod';
import { CurrentUser } from '../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../auth/tokens.js';
import { ApiZodBody, ApiZodParams, ApiZodQuery, BEARER_SCHEME, openApiSchema } from '../http/openapi.js';
import { ZodValidationPipe } from '../http/zod-validation.pipe.js';
import { errorBody, validationErrorBody } from '../runs/runs.schemas.js';
import type { DataSource } from 'typeorm';
import { GATEWAY_DATA_SOURCE } from '../projection/database.js';
import { requireAdmin } from './admin-only.js';
import { readInFlightRuns } from './in-flight-runs.js';
import { JetStreamOps } from './jetstream-ops.js';
import { OperatorAuditStore } from './operator-audit.store.js';
import {
  auditQuery,
  auditResponse,
  deadLetterSeqParams,
  deadLettersQuery,
  deadLettersResponse,
  inFlightResponse,
  lanesResponse,
  redriveByFilterBody,
  redriveByFilterResponse,
  redriveOneResponse,
} from './ops.schemas.js';

/** The operations API (admin role only): lanes' backlogs and the dead letters from JetStream, and redriving them. */
@ApiTags('ops')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@ApiForbiddenResponse({ description: 'The token has no `admin` role (claim `roles`).', schema: openApiSchema(errorBody) })
@Controller('ops')
export class OpsController {
  constructor(
    private readonly jetstream: JetStreamOps,
    private readonly audit: OperatorAuditStore,
    @Inject(GATEWAY_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

  @Get('audit')
  @ApiOperation({ summary: 'The audit log of operator actions, newest first (admin).', description: 'Every redrive: who, when, what (the dead letter or the filter), how many messages it moved. Dry runs are not actions and are not logged.' })
  @ApiZodQuery(auditQuery)
  @ApiOkResponse({ schema: openApiSchema(auditResponse) })
  @ApiBadRequestResponse({ description: 'Invalid input; `issues` name the fields.', schema: openApiSchema(validationErrorBody) })
  async auditLog(@CurrentUser() user: AuthenticatedUser, @Query(new ZodValidationPipe(auditQuery)) query: z.output<typeof auditQuery>): Promise<z.output<typeof auditResponse>> {
    requireAdmin(user);
    const entries = await this.audit.newest(query.limit);
    return { entries: entries.map((entry) => ({ ...entry, occurredAt: entry.occurredAt.toISOString() })) };
  }

  @Get('in-flight')
  @ApiOperation({
    summary: 'Runs in flight, by subscription tier and by workflow (admin).',
    description: "From the gateway's projection of the run events and the tier each run was admitted under; ended runs and research drafts are not in flight.",
  })
  @ApiOkResponse({ schema: openApiSchema(inFlightResponse) })
  async inFlight(@CurrentUser() user: AuthenticatedUser): Promise<z.output<typeof inFlightResponse>> {
    requireAdmin(user);
    const counts = await readInFlightRuns(this.dataSource);
    return { byTier: [...counts.byTier], byWorkflow: [...counts.byWorkflow] };
  }

  @Get('lanes')
  @ApiOperation({
    summary: 'Every durable consumer: backlog, in flight, redelivered (admin).',
    description: 'From JetStream consumer info, for the commands stream (each service lane) and the events stream (projections, reactions).',
  })
  @ApiOkResponse({ schema: openApiSchema(lanesResponse) })
  async lanes(@CurrentUser() user: AuthenticatedUser): Promise<z.output<typeof lanesResponse>> {
    requireAdmin(user);
    return { lanes: await this.jetstream.lanes() };
  }

  @Get('dead-letters')
  @ApiOperation({
    summary: 'The newest dead letters with their reason (admin).',
    description: 'From the dead-letter stream, newest first: original subject, stream and consumer, deliveries, reason, and the payload with its values redacted.',
  })
  @ApiZodQuery(deadLettersQuery)
  @ApiOkResponse({ schema: openApiSchema(deadLettersResponse) })
  @ApiBadRequestResponse({ description: 'Invalid input; `issues` name the fields.', schema: openApiSchema(validationErrorBody) })
  async deadLetters(@CurrentUser() user: AuthenticatedUser, @Query(new ZodValidationPipe(deadLettersQuery)) query: z.output<typeof deadLettersQuery>): Promise<z.output<typeof deadLettersResponse>> {
    requireAdmin(user);
    return this.jetstream.deadLetters(query.limit);
  }

  @Post('dead-letters/redrive')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Redrive the dead letters a filter matches, or count them with `dry_run` (admin).',
    description:
      'Each match, oldest first, is republished to its original subject (original data and headers) and removed from the dead-letter stream. Give `subject` (NATS wildcards allowed) and/or `reason` (substring); `dry_run: true` only counts.',
  })
  @ApiZodBody(redriveByFilterBody, { examples: { countBySubject: { subject: 'openpaw.cmd.solver.>', dry_run: true }, byReason: { reason: 'timeout', limit: 100 } } })
  @ApiOkResponse({ schema: openApiSchema(redriveByFilterResponse) })
  @ApiBadRequestResponse({ description: 'No filter, or an invalid one; `issues` name the fields.', schema: openApiSchema(validationErrorBody) })
  async redriveByFilter(
    @CurrentUser() user: AuthenticatedUser,
    @Body(new ZodValidationPipe(redriveByFilterBody)) body: z.output<typeof redriveByFilterBody>,
  ): Promise<z.output<typeof redriveByFilterResponse>> {
    requireAdmin(user);
    const filter = { ...(body.subject === undefined ? {} : { subject: body.subject }), ...(body.reason === undefined ? {} : { reason: body.reason }) };
    const result = await this.jetstream.redriveMatching(filter, { dryRun: body.dry_run, limit: body.limit });
    if (!body.dry_run) await this.audit.record({ actor: user.userId, action: 'redrive_by_filter', target: { ...filter, limit: body.limit }, affected: result.redriven });
    return { dryRun: body.dry_run, matched: result.matched, redriven: result.redriven, subjects: [...result.subjects] };
  }

  @Post('dead-letters/:seq/redrive')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Redrive one dead letter (admin).',
    description: 'Recorded in the audit log. Republishes it to its original subject (original data and headers) and removes it from the dead-letter stream.',
  })
  @ApiZodParams(deadLetterSeqParams)
  @ApiOkResponse({ schema: openApiSchema(redriveOneResponse) })
  @ApiNotFoundResponse({ description: 'No dead letter at that sequence (already redriven, or expired).', schema: openApiSchema(errorBody) })
  @ApiUnprocessableEntityResponse({ description: 'It names no original subject, so there is nowhere to redrive it to; or it names a subject whose dead letters are stored elsewhere (no consumer wrote it).', schema: openApiSchema(errorBody) })
  async redriveOne(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(deadLetterSeqParams)) params: z.output<typeof deadLetterSeqParams>,
  ): Promise<z.output<typeof redriveOneResponse>> {
    requireAdmin(user);
    const outcome = await this.jetstream.redrive(params.seq);
    switch (outcome.kind) {
      case 'not_found':
        throw new NotFoundException({ error: 'not_found', message: `no dead letter at sequence ${params.seq} (already redriven, or expired)` });
      case 'no_original_subject':
        throw new UnprocessableEntityException({ error: 'not_redrivable', message: `dead letter ${params.seq} has no original-subject header, so there is nowhere to redrive it to` });
      case 'not_its_dead_letter':
        throw new UnprocessableEntityException({
          error: 'not_redrivable',
          message: `dead letter ${params.seq} is stored on ${outcome.storedOn} but names ${outcome.originalSubject}, whose dead letters go elsewhere: no consumer wrote it, so it is not redriven`,
        });
      case 'redriven':
        await this.audit.record({ actor: user.userId, action: 'redrive_one', target: { seq: outcome.seq, subject: outcome.subject, msgId: outcome.msgId }, affected: 1 });
        return { seq: outcome.seq, subject: outcome.subject, msgId: outcome.msgId };
    }
  }
}
