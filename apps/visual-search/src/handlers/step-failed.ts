import { deterministicUuid, type MessageData, VisualStepFailed } from '@openpaw/contracts';
import type { StepProviderFailure } from '../observation/step-failure.js';

export type StepFailedReply = { readonly kind: 'step_failed'; readonly id: string; readonly data: MessageData<typeof VisualStepFailed> };

export function stepFailedReply(
  commandId: string,
  data: { readonly runId: string; readonly step: number },
  command: MessageData<typeof VisualStepFailed>['command'],
  failure: StepProviderFailure,
  cacheHit = false,
): StepFailedReply {
  return {
    kind: 'step_failed',
    id: deterministicUuid(commandId, VisualStepFailed.subject),
    data: {
      runId: data.runId,
      commandId,
      step: data.step,
      command,
      errorCode: failure.code,
      retryable: failure.retryable,
      detail: failure.detail,
      usage: { ...failure.usage, cacheHit },
    },
  };
}
