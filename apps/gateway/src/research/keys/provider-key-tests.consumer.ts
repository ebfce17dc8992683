import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { type Envelope, EVENT_CONSUMERS, type MessageData, ResearchProviderKeyTested } from '@openpaw/contracts';
import { NATS_CONNECTION } from '@openpaw/messaging';
import { MessageLogContext, MetricsMessagingObserver } from '@openpaw/platform';
import { ResearchReportConsumer } from '../research-report-consumer.js';
import { ProviderKeys } from './provider-keys.js';

/** FROZEN: the durable is this consumer's position in the events stream. */
export const KEY_TESTS_DURABLE = EVENT_CONSUMERS.gateway.researchKeyTests.durable;

/** Records the research service's reports of key tests on the tested keys, for `GET /research/keys`. */
@Injectable()
export class ProviderKeyTestsConsumer extends ResearchReportConsumer<typeof ResearchProviderKeyTested> {
  constructor(
    @Inject(NATS_CONNECTION) nc: NatsConnection,
    private readonly keys: ProviderKeys,
    observer: MetricsMessagingObserver,
    logs: MessageLogContext,
  ) {
    super(nc, ResearchProviderKeyTested, KEY_TESTS_DURABLE, observer, logs);
  }

  protected async apply(envelope: Envelope<MessageData<typeof ResearchProviderKeyTested>>): Promise<void> {
    const recorded = await this.keys.tests.record(envelope.data);
    // Not recorded: the key was replaced or removed, or tested again, since.
    this.logs.logger.debug({ testId: envelope.data.testId, provider: envelope.data.provider, outcome: envelope.data.outcome, recorded }, 'provider key test');
  }
}
