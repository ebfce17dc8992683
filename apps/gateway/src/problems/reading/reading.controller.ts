import { BadRequestException, ConflictException, Controller, HttpCode, NotFoundException, Param, Post, Body } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBadRequestResponse, ApiBearerAuth, ApiConflictResponse, ApiNotFoundResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { correctedReadingText, type ReadingDecisionInput } from '@openpaw/contracts';
import { z } from 'zod';
import { CurrentUser } from '../../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../../auth/tokens.js';
import { ApiZodBody, ApiZodParams, BEARER_SCHEME, openApiSchema } from '../../http/openapi.js';
import { type ValidationErrorBody, ZodValidationPipe } from '../../http/zod-validation.pipe.js';
import { errorBody, runIdParams, validationErrorBody } from '../../runs/runs.schemas.js';
import { DecideReadingHandler } from './decide-reading.handler.js';

/** `POST /runs/:id/reading`: the reading confirmed as read, or the problem's text corrected (exactly one). */
export const readingDecisionBody = z
  .strictObject({
    confirm: z.literal(true).optional().describe('The reading is right as read: solve it.'),
    text: correctedReadingText.optional().describe('The problem’s text, corrected: solve this instead (1 to 20 000 characters, no NUL).'),
  })
  .superRefine((body, ctx) => {
    if ((body.confirm === undefined) === (body.text === undefined)) ctx.addIssue({ code: 'custom', path: ['confirm'], message: 'send either `{ "confirm": true }` or `{ "text": "..." }`' });
  });

export const readingDecisionAccepted = z.object({
  runId: z.uuid(),
  status: z.enum(['applied', 'pending']).describe('`applied`: the run moved on; `pending`: stored, not answered within the wait.'),
  state: z.string(),
});

export const readingNotAwaited = z.object({ error: z.literal('reading_not_awaited'), message: z.string(), state: z.string() });

const notFound = (): NotFoundException => new NotFoundException({ error: 'not_found', message: 'no such problem run' });

/** Read → confirm → solve (issue 25): the owner of a run waiting in AWAITING_READING_CONFIRMATION answers its reading. */
@ApiTags('problems')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@Controller('runs')
export class ReadingController {
  constructor(private readonly decide: DecideReadingHandler) {}

  @Post(':id/reading')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Confirm or correct the reading of a problem image.',
    description:
      'For a problem submitted with `confirm_reading` whose image could not be read reliably: the run waits in `AWAITING_READING_CONFIRMATION` ' +
      'with the reading and its doubts in its view (`reading`). `{ "confirm": true }` solves the reading as read; `{ "text": "..." }` solves the ' +
      'corrected text. Either way the run continues as a text problem (retrieval, then a solve on a miss).',
  })
  @ApiZodParams(runIdParams)
  @ApiZodBody(readingDecisionBody, { examples: { confirm: { confirm: true }, corrected: { text: 'Solve 2x + 3 = 11 for x.' } } })
  @ApiAcceptedResponse({ schema: openApiSchema(readingDecisionAccepted) })
  @ApiBadRequestResponse({ description: 'Neither or both of `confirm` and `text`, or the text is empty, too long or holds NUL; `issues` name it.', schema: openApiSchema(validationErrorBody) })
  @ApiConflictResponse({ description: 'The run is not waiting for its reading to be confirmed.', schema: openApiSchema(readingNotAwaited) })
  @ApiNotFoundResponse({ description: 'No such problem run among the caller’s.', schema: openApiSchema(errorBody) })
  async answer(
    @CurrentUser() user: AuthenticatedUser,
    @Param(new ZodValidationPipe(runIdParams)) params: z.output<typeof runIdParams>,
    @Body(new ZodValidationPipe(readingDecisionBody)) body: z.output<typeof readingDecisionBody>,
  ): Promise<z.output<typeof readingDecisionAccepted>> {
    const decision: ReadingDecisionInput = body.text === undefined ? { confirm: true } : { text: body.text };
    const result = await this.decide.execute({ runId: params.id, userId: user.userId, decision });
    switch (result.kind) {
      case 'notFound':
        throw notFound();
      case 'notWaiting': {
        const refusal: z.output<typeof readingNotAwaited> = { error: 'reading_not_awaited', message: result.detail, state: result.state };
        throw new ConflictException(refusal);
      }
      case 'invalid': {
        const refused: ValidationErrorBody = { error: 'validation_failed', location: 'body', issues: [{ path: '', message: result.detail }] };
        throw new BadRequestException(refused);
      }
      case 'applied':
      case 'pending':
        return { runId: params.id, status: result.kind, state: result.state };
    }
  }
}
