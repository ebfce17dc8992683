import { Inject, Injectable } from '@nestjs/common';
import { type Envelope, type MessageData, ResearchProviderKeyTested, TestResearchProviderKey } from '@openpaw/contracts';
import { type HandlerOutcome, MESSAGE_PUBLISHER, type MessagePublisher, OnMessage } from '@openpaw/messaging';
import { TestProviderKeyHandler } from '../handlers/test-provider-key/test-provider-key.handler.js';
import { RESEARCH_FLOW_SOURCE } from './research-flow.consumer.js';

/** Users' tests of their stored model-provider keys, commands from the gateway: each is one call, reported as `ResearchProviderKeyTested`. */
@Injectable()
export class ProviderKeyTestConsumer {
  constructor(
    private readonly tests: TestProviderKeyHandler,
    @Inject(MESSAGE_PUBLISHER) private readonly publisher: MessagePublisher,
  ) {}

  /** A redelivered test calls the provider again (one more minimal call) and reports again under the same test id: the gateway keeps one. */
  @OnMessage(TestResearchProviderKey)
  async onTest(envelope: Envelope<MessageData<typeof TestResearchProviderKey>>): Promise<HandlerOutcome> {
    const report = await this.tests.execute(envelope.data);
    await this.publisher.publish(ResearchProviderKeyTested, report, {
      source: RESEARCH_FLOW_SOURCE,
      correlationId: envelope.correlationid,
      causationId: envelope.id,
      userId: report.userId,
      subject: report.userId,
    });
    return { kind: 'ack' };
  }
}
