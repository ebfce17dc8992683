import { Inject, Injectable } from '@nestjs/common';
import { type Envelope, type EnvelopeMeta, GenerateSolution, type MessageData, SolutionFailed, SolutionGenerated } from '@openpaw/contracts';
import { type HandlerOutcome, MESSAGE_PUBLISHER, type MessagePublisher, OnMessage, replyMetaFor } from '@openpaw/messaging';
import { GenerateSolutionHandler } from '../handlers/generate-solution/generate-solution.handler.js';
import type { SolveReply } from '../ports.js';

export const SOLVE_SOURCE = '/openpaw/solve';

/**
 * The solve service's JetStream transport: parses nothing itself (messaging validated the envelope),
 * builds the command, calls the handler and publishes its reply as an answer to the command
 * (correlation = the command's run, causation = the command, same user).
 */
@Injectable()
export class SolveCommandsConsumer {
  constructor(
    private readonly generateSolution: GenerateSolutionHandler,
    @Inject(MESSAGE_PUBLISHER) private readonly publisher: MessagePublisher,
  ) {}

  @OnMessage(GenerateSolution)
  async onGenerateSolution(envelope: Envelope<MessageData<typeof GenerateSolution>>): Promise<HandlerOutcome> {
    const result = await this.generateSolution.execute({ commandId: envelope.id, data: envelope.data, ...(envelope.userid === undefined ? {} : { userId: envelope.userid }) });
    if (result.kind === 'busy') {
      return { kind: 'retry', reason: 'another delivery of this solve attempt is in progress', delayMs: result.retryInMs + 250 };
    }
    await publishSolveReply(this.publisher, result.reply, replyMetaFor(envelope, { id: result.reply.id, source: SOLVE_SOURCE, subject: envelope.data.runId }));
    return { kind: 'ack' };
  }
}

async function publishSolveReply(publisher: MessagePublisher, reply: SolveReply, meta: EnvelopeMeta): Promise<void> {
  switch (reply.kind) {
    case 'generated':
      await publisher.publish(SolutionGenerated, reply.data, meta);
      return;
    case 'failed':
      await publisher.publish(SolutionFailed, reply.data, meta);
      return;
  }
}
