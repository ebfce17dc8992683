import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse, ApiBadRequestResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import { freeText } from '@openpaw/contracts';
import { z } from 'zod';
import { CurrentUser } from '../../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../../auth/tokens.js';
import { ApiZodBody, BEARER_SCHEME, openApiSchema } from '../../http/openapi.js';
import { ZodValidationPipe } from '../../http/zod-validation.pipe.js';
import { errorBody, validationErrorBody } from '../../runs/runs.schemas.js';
import { ImportLibraryHandler } from './import-library.handler.js';

/** `POST /library/references`: a BibTeX or RIS file's text (JSON bodies are limited to 100 KB: larger libraries in parts). */
export const importLibraryBody = z.strictObject({
  format: z.enum(['bibtex', 'ris']),
  content: freeText().min(1).max(512 * 1024),
});

export const libraryImported = z.object({
  importId: z.uuid(),
  status: z.enum(['imported', 'pending']).describe('`pending`: the research service has not answered within the wait (the import is queued).'),
  added: z.int().nonnegative().optional(),
  updated: z.int().nonnegative().optional(),
  skipped: z.array(z.object({ entry: z.int().nonnegative(), reason: z.string() })).optional(),
});

/** The caller's own references: the `library` source their paper searches search (PostgreSQL full-text search). */
@ApiTags('paper-searches')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@ApiBadRequestResponse({ description: 'Invalid input; `issues` name the fields.', schema: openApiSchema(validationErrorBody) })
@Controller('library')
export class LibraryController {
  constructor(private readonly importLibrary: ImportLibraryHandler) {}

  @Post('references')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Import BibTeX or RIS references into your library.',
    description: 'The `library` source of paper searches searches them. The same file again updates in place (same DOI, arXiv id or title).',
  })
  @ApiZodBody(importLibraryBody)
  @ApiOkResponse({ schema: openApiSchema(libraryImported) })
  @ApiAcceptedResponse({ schema: openApiSchema(libraryImported) })
  async import(
    @CurrentUser() user: AuthenticatedUser,
    @Body(new ZodValidationPipe(importLibraryBody)) body: z.output<typeof importLibraryBody>,
    @Res({ passthrough: true }) response: Response,
  ): Promise<z.output<typeof libraryImported>> {
    const result = await this.importLibrary.execute({ userId: user.userId, format: body.format, content: body.content });
    if (result.kind === 'pending') {
      response.status(202);
      return { importId: result.importId, status: 'pending' };
    }
    return { importId: result.importId, status: 'imported', ...result.data };
  }
}
