import { Body, ConflictException, Controller, Delete, Get, HttpCode, NotFoundException, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { z } from 'zod';
import { CurrentUser } from '../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../auth/tokens.js';
import { ApiZodBody, ApiZodParams, BEARER_SCHEME, openApiSchema } from '../http/openapi.js';
import { ZodValidationPipe } from '../http/zod-validation.pipe.js';
import { errorBody, validationErrorBody } from '../runs/runs.schemas.js';
import { SAVED_VIEWS_PER_USER, saveViewBody, savedViewNameParams, savedViewResource, savedViewsResponse } from './run-views.schemas.js';
import { SavedRunViewStore, type SavedRunView } from './saved-run-view.store.js';

function toResource(view: SavedRunView): z.output<typeof savedViewResource> {
  return { name: view.name, filter: view.filter, createdAt: view.createdAt.toISOString() };
}

/** Saved views of the runs list: each user's named filter sets, kept by the gateway. */
@ApiTags('runs')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@Controller('run-views')
export class RunViewsController {
  constructor(private readonly views: SavedRunViewStore) {}

  @Get()
  @ApiOperation({ summary: 'The caller\'s saved views of the runs list, oldest first.' })
  @ApiOkResponse({ schema: openApiSchema(savedViewsResponse) })
  async list(@CurrentUser() user: AuthenticatedUser): Promise<z.output<typeof savedViewsResponse>> {
    return { views: (await this.views.list(user.userId)).map(toResource), limit: SAVED_VIEWS_PER_USER };
  }

  @Post()
  @ApiOperation({
    summary: 'Save the runs list\'s current filters under a name.',
    description: `At most ${SAVED_VIEWS_PER_USER} views per user; a name is used once per user (delete the old view to replace it).`,
  })
  @ApiZodBody(saveViewBody, { examples: { failedResearch: { name: 'Failed research', filter: { type: 'research', state: 'FAILED' } }, thisWeek: { name: 'This week', filter: { from: '2026-11-23', to: '2026-11-29' } } } })
  @ApiCreatedResponse({ schema: openApiSchema(savedViewResource) })
  @ApiBadRequestResponse({ description: 'Invalid name or filter; `issues` name the fields.', schema: openApiSchema(validationErrorBody) })
  @ApiConflictResponse({ description: '`name_taken`: a view of that name exists; `view_limit_reached`: the caller has the most views allowed.', schema: openApiSchema(errorBody) })
  async save(@CurrentUser() user: AuthenticatedUser, @Body(new ZodValidationPipe(saveViewBody)) body: z.output<typeof saveViewBody>): Promise<z.output<typeof savedViewResource>> {
    const outcome = await this.views.save(user.userId, body.name, body.filter, SAVED_VIEWS_PER_USER);
    switch (outcome.kind) {
      case 'saved':
        return toResource(outcome.view);
      case 'name_taken':
        throw new ConflictException({ error: 'name_taken', message: `you already have a view named "${body.name}"; delete it first or choose another name` });
      case 'limit_reached':
        throw new ConflictException({ error: 'view_limit_reached', message: `you have ${outcome.limit} saved views, the most allowed; delete one to save another` });
    }
  }

  @Delete(':name')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete one of the caller\'s saved views.' })
  @ApiZodParams(savedViewNameParams)
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiBadRequestResponse({ description: 'Not a view name; `issues` name the field.', schema: openApiSchema(validationErrorBody) })
  @ApiNotFoundResponse({ description: 'The caller has no view of that name.', schema: openApiSchema(errorBody) })
  async delete(@CurrentUser() user: AuthenticatedUser, @Param(new ZodValidationPipe(savedViewNameParams)) params: z.output<typeof savedViewNameParams>): Promise<void> {
    if (!(await this.views.delete(user.userId, params.name))) {
      throw new NotFoundException({ error: 'not_found', message: `you have no view named "${params.name}"` });
    }
  }
}
