import { Body, Controller, GatewayTimeoutException, HttpCode, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiForbiddenResponse, ApiGatewayTimeoutResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { z } from 'zod';
import { CurrentUser } from '../../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../../auth/tokens.js';
import { ApiZodBody, BEARER_SCHEME, openApiSchema } from '../../http/openapi.js';
import { ZodValidationPipe } from '../../http/zod-validation.pipe.js';
import { requireAdmin } from '../../ops/admin-only.js';
import { OperatorAuditStore } from '../../ops/operator-audit.store.js';
import { errorBody, validationErrorBody } from '../../runs/runs.schemas.js';
import { VISUAL_TAKEDOWN_WAIT_MS, VisualTakedownHandler } from './visual-takedown.handler.js';
import { visualTakedownBody, visualTakedownResponse } from './visual-takedown.schemas.js';

/**
 * Spec 03's takedown path for operators (the `admin` role, as the whole operations API): visual-search
 * takes the person down (the handler the `visual-takedown` tool runs) and reports it; the gateway answers
 * with that report and records the action in the operator audit log.
 */
@ApiTags('ops')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@ApiForbiddenResponse({ description: 'The token has no `admin` role (claim `roles`).', schema: openApiSchema(errorBody) })
@Controller('ops/visual-degrees/takedowns')
export class VisualTakedownController {
  constructor(
    private readonly takedown: VisualTakedownHandler,
    private readonly audit: OperatorAuditStore,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Take a person down from visual degrees (admin).',
    description:
      'By the recogniser\'s id of the person (Rekognition `Id`; in the local demo world `lw-<seed>-<n>`). From then on no run recognises the person, keeps a picture of them or verifies an edge with them (every visual-search replica within 30 s); their pairs leave the shared evidence cache and every stored picture showing them is deleted (those pictures answer 404). Recorded in the audit log. Idempotent: sending it again removes what a step in flight kept meanwhile.',
  })
  @ApiZodBody(visualTakedownBody, { examples: { person: { celebrityId: '1SK7cR8M', name: 'Ada Stone', reason: 'The person asked to be removed (privacy request).' } } })
  @ApiOkResponse({ description: 'Done: what was removed, as visual-search reported it.', schema: openApiSchema(visualTakedownResponse) })
  @ApiBadRequestResponse({ description: 'Invalid input; `issues` name the fields.', schema: openApiSchema(validationErrorBody) })
  @ApiGatewayTimeoutResponse({ description: 'visual-search did not report the takedown in time; the command stays queued and is carried out when the service takes it (sending it again is harmless).', schema: openApiSchema(errorBody) })
  async takeDown(@CurrentUser() user: AuthenticatedUser, @Body(new ZodValidationPipe(visualTakedownBody)) body: z.output<typeof visualTakedownBody>): Promise<z.output<typeof visualTakedownResponse>> {
    requireAdmin(user);
    const done = await this.takedown.execute({ ...body, requestedBy: user.userId }, { timeoutMs: VISUAL_TAKEDOWN_WAIT_MS });
    if (done === undefined) {
      throw new GatewayTimeoutException({ error: 'takedown_timeout', message: `visual-search did not report the takedown within ${VISUAL_TAKEDOWN_WAIT_MS / 1000} s; it stays queued, and sending it again is harmless` });
    }
    const { commandId: _answered, ...report } = done;
    await this.audit.record({
      actor: user.userId,
      action: 'visual_takedown',
      target: { recognizer: report.recognizer, celebrityId: report.celebrityId, ...(body.name === undefined ? {} : { name: body.name }), reason: body.reason },
      affected: report.cacheEntriesRemoved + report.thumbnailsRemoved,
    });
    return report;
  }
}
