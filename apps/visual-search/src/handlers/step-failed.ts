import { type MessageData, VisualStepFailed } from '@openpaw/contracts';
import { type Reply, replyTo } from '@openpaw/messaging';
import type { StepProviderFailure } from '../observation/step-failure.js';

export function stepFailedReply(
  commandId: string,
  data: { readonly runId: string; readonly step: number },
  command: MessageData<typeof VisualStepFailed>['command'],
  failure: StepProviderFailure,
  cacheHit = false,
): Reply {
  return replyTo(commandId, VisualStepFailed, {
    runId: data.runId,
    commandId,
    step: data.step,
    command,
    errorCode: failure.code,
    retryable: failure.retryable,
    detail: failure.detail,
    usage: { ...failure.usage, cacheHit },
  });
}
