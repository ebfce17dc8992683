import { Body, Controller, Delete, Get, HttpCode, NotFoundException, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { z } from 'zod';
import { CurrentUser } from '../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../auth/tokens.js';
import { ApiZodBody, ApiZodParams, BEARER_SCHEME, openApiSchema } from '../http/openapi.js';
import { ZodValidationPipe } from '../http/zod-validation.pipe.js';
import { errorBody } from '../runs/runs.schemas.js';
import { ProviderKeys } from './keys/provider-keys.js';
import { keyProviderParams, keysList, putKeyBody } from './research.schemas.js';

/** The caller's own model-provider API keys, for their research legs (stored encrypted; never shown again). */
@ApiTags('research')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@ApiServiceUnavailableResponse({ description: 'Per-user keys are not configured (`OPENPAW_KEY_SEALING_PUBLIC_KEY`, or `OPENPAW_KEY_ENCRYPTION_KEY`).', schema: openApiSchema(errorBody) })
@Controller('research/keys')
export class ProviderKeysController {
  constructor(private readonly keys: ProviderKeys) {}

  @Get()
  @ApiOperation({ summary: 'Which providers the caller has a key for (never the keys).' })
  @ApiOkResponse({ schema: openApiSchema(keysList) })
  async list(@CurrentUser() user: AuthenticatedUser): Promise<z.output<typeof keysList>> {
    return { keys: await this.keys.list(user.userId) };
  }

  @Put(':provider')
  @HttpCode(204)
  @ApiOperation({ summary: 'Store (or replace) the caller’s API key of a provider, encrypted at rest (AES-256-GCM).' })
  @ApiZodParams(keyProviderParams)
  @ApiZodBody(putKeyBody)
  @ApiNoContentResponse({ description: 'Stored.' })
  async put(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(keyProviderParams)) params: z.output<typeof keyProviderParams>,
    @Body(new ZodValidationPipe(putKeyBody)) body: z.output<typeof putKeyBody>,
  ): Promise<void> {
    await this.keys.put(user.userId, params.provider, body.apiKey);
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
