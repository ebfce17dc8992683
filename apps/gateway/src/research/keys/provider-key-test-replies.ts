import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { type Envelope, type MessageData, ResearchProviderKeyTested } from '@openpaw/contracts';
import { NATS_CONNECTION } from '@openpaw/messaging';
import { CommandReplies } from '../../runs/command-replies.js';

type KeyTestReport = Envelope<MessageData<typeof ResearchProviderKeyTested>>;

/** The research service's reports of key tests, for `POST /research/keys/:provider/test?wait=` (see `CommandReplies`): a report names its test by `testId`. */
@Injectable()
export class ProviderKeyTestReplies extends CommandReplies<KeyTestReport> {
  constructor(@Inject(NATS_CONNECTION) nc: NatsConnection) {
    super(nc, [ResearchProviderKeyTested], ProviderKeyTestReplies.name);
  }

  protected override correlationIdOf(reply: KeyTestReport): string {
    return reply.data.testId;
  }
}
