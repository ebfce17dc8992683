import { randomUUID } from 'node:crypto';
import { Body, Controller, Delete, Get, HttpCode, Inject, NotFoundException, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import { TestResearchProviderKey } from '@openpaw/contracts';
import type { z } from 'zod';
import { CurrentUser } from '../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../auth/tokens.js';
import { ApiZodBody, ApiZodParams, ApiZodQuery, BEARER_SCHEME, openApiSchema } from '../http/openapi.js';
import { ZodValidationPipe } from '../http/zod-validation.pipe.js';
import { type CommandPublisher, COMMAND_PUBLISHER, userCommandMeta } from '../runs/ports.js';
import { errorBody } from '../runs/runs.schemas.js';
import { ProviderKeyTestReplies } from './keys/provider-key-test-replies.js';
import { reportedTest } from './keys/provider-key-tests.js';
import { ProviderKeys } from './keys/provider-keys.js';
import { keyProviderParams, keysList, keyTestQuery, keyTestStarted, putKeyBody } from './research.schemas.js';

/** The caller's own model-provider API keys, for their research legs (stored encrypted; never shown again). */
@ApiTags('research')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@ApiServiceUnavailableResponse({ description: 'Per-user keys are not configured (`OPENPAW_KEY_SEALING_PUBLIC_KEY`, or `OPENPAW_KEY_ENCRYPTION_KEY`).', schema: openApiSchema(errorBody) })
@Controller('research/keys')
export class ProviderKeysController {
  constructor(
    private readonly keys: ProviderKeys,
    @Inject(COMMAND_PUBLISHER) private readonly publisher: CommandPublisher,
    private readonly reports: ProviderKeyTestReplies,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Which providers the caller has a key for (never the keys), and how each key’s latest test went.' })
  @ApiOkResponse({ schema: openApiSchema(keysList) })
  async list(@CurrentUser() user: AuthenticatedUser): Promise<z.output<typeof keysList>> {
    return { keys: await this.keys.list(user.userId) };
  }

  @Put(':provider')
  @HttpCode(204)
  @ApiOperation({ summary: 'Store (or replace) the caller’s API key of a provider, encrypted at rest (AES-256-GCM).' })
  @ApiZodParams(keyProviderParams)
  @ApiZodBody(putKeyBody, { examples: { key: { apiKey: 'sk-proj-Example0123456789abcdef' } } })
  @ApiNoContentResponse({ description: 'Stored.' })
  async put(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(keyProviderParams)) params: z.output<typeof keyProviderParams>,
    @Body(new ZodValidationPipe(putKeyBody)) body: z.output<typeof putKeyBody>,
  ): Promise<void> {
    await this.keys.put(user.userId, params.provider, body.apiKey);
  }

  @Post(':provider/test')
  @ApiOperation({
    summary: 'Test the caller’s stored key of a provider: one minimal call to the model research uses.',
    description:
      'The research service (the gateway never calls a provider) opens the key, makes one minimal call with it (a few output tokens, no retry) and reports how it went. ' +
      'With `?wait=<seconds>` the answer waits for that report: 200 with the outcome in `lastTest`, or 202 when it did not come in time. ' +
      'Either way it shows as `lastTest` of the key in `GET /research/keys` (with this `testId`) once reported. Replacing the key starts it untested.',
  })
  @ApiZodParams(keyProviderParams)
  @ApiZodQuery(keyTestQuery)
  @ApiOkResponse({ description: 'Reported within the wait: `lastTest.outcome` says how the call went.', schema: openApiSchema(keyTestStarted) })
  @ApiAcceptedResponse({ description: 'Asked; not reported yet (`lastTest.outcome` null).', schema: openApiSchema(keyTestStarted) })
  @ApiNotFoundResponse({ description: 'No key of that provider.', schema: openApiSchema(errorBody) })
  async test(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(keyProviderParams)) params: z.output<typeof keyProviderParams>,
    @Query(new ZodValidationPipe(keyTestQuery)) query: z.output<typeof keyTestQuery>,
    @Res({ passthrough: true }) response: Response,
  ): Promise<z.output<typeof keyTestStarted>> {
    const testId = randomUUID();
    const requestedAt = new Date();
    const key = await this.keys.tests.begin(user.userId, params.provider, testId, requestedAt);
    if (key === undefined) throw new NotFoundException({ error: 'not_found', message: `no ${params.provider} key; PUT /research/keys/${params.provider} {apiKey} stores one` });
    const report = await this.reports.request(testId, { timeoutMs: (query.wait ?? 0) * 1000 }, () =>
      this.publisher.publish(TestResearchProviderKey, { userId: user.userId, provider: params.provider, key, testId, requestedAt: requestedAt.toISOString() }, userCommandMeta(user.userId, testId)),
    );
    const started = { testId, provider: params.provider, requestedAt: requestedAt.toISOString() };
    if (report === undefined) {
      response.status(202);
      return { ...started, lastTest: { testId, requestedAt: started.requestedAt, testedAt: null, outcome: null, model: null, latencyMs: null, reason: null } };
    }
    // Recorded here too (the same update the report's consumer makes), so a `GET /research/keys` right after this answer shows it.
    await this.keys.tests.record(report.data);
    response.status(200);
    return { ...started, lastTest: reportedTest(started.requestedAt, report.data) };
  }

  @Delete(':provider')
  @HttpCode(204)
  @ApiOperation({ summary: 'Forget the caller’s API key of a provider.' })
  @ApiZodParams(keyProviderParams)
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiNotFoundResponse({ description: 'No key of that provider.', schema: openApiSchema(errorBody) })
  async delete(@CurrentUser() user: AuthenticatedUser, @Param(new ZodValidationPipe(keyProviderParams)) params: z.output<typeof keyProviderParams>): Promise<void> {
    if (!(await this.keys.delete(user.userId, params.provider))) throw new NotFoundException({ error: 'not_found', message: `no ${params.provider} key` });
  }
}
