import { Inject, Injectable } from '@nestjs/common';
import { type Envelope, GenerateSolution, type MessageData } from '@openpaw/contracts';
import { type HandlerOutcome, MESSAGE_PUBLISHER, type MessagePublisher, OnMessage, publishReplies } from '@openpaw/messaging';
import { GenerateSolutionHandler } from '../handlers/generate-solution/generate-solution.handler.js';

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
    await publishReplies(this.publisher, envelope, [result.reply], { source: SOLVE_SOURCE, subject: envelope.data.runId });
    return { kind: 'ack' };
  }
}
