import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse, ApiBadRequestResponse } from '@nestjs/swagger';
import type { z } from 'zod';
import { CurrentUser } from '../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../auth/tokens.js';
import { ApiZodQuery, BEARER_SCHEME, openApiSchema } from '../http/openapi.js';
import { ZodValidationPipe } from '../http/zod-validation.pipe.js';
import { errorBody, validationErrorBody } from '../runs/runs.schemas.js';
import { requireAdmin } from './admin-only.js';
import { JetStreamOps } from './jetstream-ops.js';
import { deadLettersQuery, deadLettersResponse, lanesResponse } from './ops.schemas.js';

/** The operations API (admin role only): lanes' backlogs and the dead letters, read from JetStream. */
@ApiTags('ops')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@ApiForbiddenResponse({ description: 'The token has no `admin` role (claim `roles`).', schema: openApiSchema(errorBody) })
@Controller('ops')
export class OpsController {
  constructor(private readonly jetstream: JetStreamOps) {}

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
}
