import { BadRequestException, Body, Controller, HttpCode, PayloadTooLargeException, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiProduces,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { freeText } from '@openpaw/contracts';
import { z } from 'zod';
import { CurrentUser } from '../../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../../auth/tokens.js';
import { ApiZodBody, ApiZodQuery, BEARER_SCHEME, openApiSchema } from '../../http/openapi.js';
import { ZodValidationPipe } from '../../http/zod-validation.pipe.js';
import { errorBody, validationErrorBody } from '../../runs/runs.schemas.js';
import { ImportLibraryHandler, type LibraryFileProgress, withFileLines } from './import-library.handler.js';
import { entryStartsOf, LIBRARY_FILE_MAX_BYTES, LibraryFileTextError, LibraryFileTooLargeError } from './library-parts.js';

/** `POST /library/references/file?format=`: which format the raw file is in. */
export const libraryFileQuery = z.object({ format: z.enum(['bibtex', 'ris']).describe('bibtex or ris') });

/** Media types a raw library file may be sent as (a JSON body would be read by the JSON parser, not streamed). */
export const LIBRARY_FILE_MEDIA_TYPES = ['application/x-bibtex', 'application/x-research-info-systems', 'text/plain', 'application/octet-stream'] as const;

function tooLarge(): PayloadTooLargeException {
  return new PayloadTooLargeException({ error: 'payload_too_large', message: `the library file is larger than the limit of ${LIBRARY_FILE_MAX_BYTES / (1024 * 1024)} MiB`, limit_bytes: LIBRARY_FILE_MAX_BYTES });
}

/** One NDJSON line of a streamed import's progress. */
function progressLine(progress: LibraryFileProgress): Record<string, unknown> {
  if (progress.event === 'oversized') return { ...progress };
  const { result } = progress;
  return { event: 'part', part: progress.part, bytesRead: progress.bytesRead, importId: result.importId, status: result.kind, ...(result.kind === 'imported' ? result.data : {}) };
}

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
  skipped: z
    .array(z.object({ entry: z.int().nonnegative(), line: z.int().positive().optional().describe('Where the entry starts in `content` (1-based), when the entry is named.'), reason: z.string() }))
    .optional(),
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
  @ApiZodBody(importLibraryBody, {
    examples: {
      bibtex: { format: 'bibtex', content: '@article{vaswani2017,\n  title = {Attention Is All You Need},\n  author = {Vaswani, Ashish and Shazeer, Noam},\n  year = {2017}\n}\n' },
      ris: { format: 'ris', content: 'TY  - JOUR\nTI  - Graph Attention Networks\nAU  - Veličković, Petar\nPY  - 2018\nER  - \n' },
    },
  })
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
    return { importId: result.importId, status: 'imported', ...result.data, skipped: withFileLines(entryStartsOf(body.content), result.data.skipped) };
  }

  @Post('references/file')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Import a whole BibTeX or RIS file (up to 50 MiB), streamed, with progress.',
    description:
      'Send the file itself as the body (`Content-Type: application/x-bibtex`, `application/x-research-info-systems`, `text/plain` or `application/octet-stream`). ' +
      'It is read as it arrives and imported in parts of whole entries; the answer is NDJSON: one line per part (`event: part`, with `bytesRead`), ' +
      'one per entry too large to import (`event: oversized`, with its line), then `event: done` with the totals. ' +
      'Past 50 MiB: 413 when the Content-Length says so up front; otherwise the stream ends with `event: error` (`payload_too_large`), the parts before it imported.',
  })
  @ApiZodQuery(libraryFileQuery)
  @ApiConsumes(...LIBRARY_FILE_MEDIA_TYPES)
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiProduces('application/x-ndjson')
  @ApiOkResponse({ description: 'NDJSON progress lines, then the totals (`event: done`).' })
  @ApiPayloadTooLargeResponse({ description: 'The file is larger than 50 MiB.', schema: openApiSchema(errorBody) })
  async importFile(
    @CurrentUser() user: AuthenticatedUser,
    @Query(new ZodValidationPipe(libraryFileQuery)) query: z.output<typeof libraryFileQuery>,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!(LIBRARY_FILE_MEDIA_TYPES as readonly string[]).includes(mediaType)) {
      throw new BadRequestException({ error: 'unsupported_media_type', message: `send the file itself as the body, as one of ${LIBRARY_FILE_MEDIA_TYPES.join(', ')} (got "${mediaType || 'none'}")` });
    }
    const declared = Number(request.headers['content-length'] ?? Number.NaN);
    if (declared > LIBRARY_FILE_MAX_BYTES) throw tooLarge();
    if (declared === 0) throw new BadRequestException({ error: 'empty_file', message: 'the library file is empty' });
    // Headers go out with the first line: until then a refusal is still a plain 4xx.
    const line = (body: Record<string, unknown>): void => {
      if (!response.headersSent) response.status(200).setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
      response.write(`${JSON.stringify(body)}\n`);
    };
    try {
      const summary = await this.importLibrary.importFile(user.userId, query.format, request, (progress) => line(progressLine(progress)));
      if (summary.parts === 0 && summary.skipped.length === 0) throw new BadRequestException({ error: 'empty_file', message: 'the library file holds no entry' });
      line({ event: 'done', ...summary });
      response.end();
    } catch (error) {
      const unstorable = error instanceof LibraryFileTextError ? { error: 'unstorable_text', message: error.message, line: error.line } : undefined;
      if (!response.headersSent) throw error instanceof LibraryFileTooLargeError ? tooLarge() : unstorable !== undefined ? new BadRequestException(unstorable) : error;
      // Mid-stream, the status is sent: the last line says why the import stopped.
      const refusal =
        error instanceof LibraryFileTooLargeError
          ? { error: 'payload_too_large', message: error.message, limit_bytes: error.maxBytes }
          : (unstorable ?? { error: 'import_failed', message: error instanceof Error ? error.message : String(error) });
      line({ event: 'error', ...refusal });
      response.end();
    }
  }
}
