import { Inject, Injectable } from '@nestjs/common';
import { ProblemWithdrawn, type WithdrawProblem } from '@openpaw/contracts';
import { answerOnceWith, type KeptReplyStore, type Reply, replyTo } from '@openpaw/messaging';
import { RETRIEVAL_REPLIES } from '../../ports.js';
import type { RetrievalCommand } from '../retrieval-command.js';
import { RetrievalIndex } from '../../search/retrieval-index.js';

export type WithdrawProblemCommand = RetrievalCommand<typeof WithdrawProblem>;

/**
 * WithdrawProblem (issue 24): the asset version leaves every index while it still holds what the sweep
 * judged, then ProblemWithdrawn, which every replica hears (withdrawal.subscription.ts) and drops the
 * problem from its memory. A redelivered command gets the kept reply; one sent again finds the row
 * already withdrawn.
 */
@Injectable()
export class WithdrawProblemHandler {
  constructor(
    private readonly index: RetrievalIndex,
    @Inject(RETRIEVAL_REPLIES) private readonly replies: KeptReplyStore,
  ) {}

  execute(command: WithdrawProblemCommand): Promise<Reply> {
    return answerOnceWith(this.replies, command.commandId, async () => {
      const { runId, assetVersionId, expected, reason } = command.data;
      const outcome = await this.index.withdraw(assetVersionId, expected, reason);
      return replyTo(command.commandId, ProblemWithdrawn, { runId, commandId: command.commandId, assetVersionId, outcome });
    });
  }
}
