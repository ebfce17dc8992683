import { Inject, Injectable } from '@nestjs/common';
import { type Envelope, type MessageData, NormalizeMedia } from '@openpaw/contracts';
import { type HandlerOutcome, MESSAGE_PUBLISHER, type MessagePublisher, OnMessage, publishReplies } from '@openpaw/messaging';
import { NormalizeMediaHandler } from '../handlers/normalize-media/normalize-media.handler.js';

export const INGESTION_SOURCE = '/openpaw/ingestion';

/**
 * The ingestion service's JetStream transport: builds the command from its (validated) envelope, calls
 * the handler and publishes its reply as the answer to the command (id derived from the command,
 * correlation = the command's run, causation = the command, same user). A handler that throws (an
 * outage, not a bad input) leaves the delivery to messaging's retry and dead-letter policy.
 */
@Injectable()
export class IngestionCommandsConsumer {
  constructor(
    private readonly normalizeMedia: NormalizeMediaHandler,
    @Inject(MESSAGE_PUBLISHER) private readonly publisher: MessagePublisher,
  ) {}

  @OnMessage(NormalizeMedia)
  async onNormalizeMedia(envelope: Envelope<MessageData<typeof NormalizeMedia>>): Promise<HandlerOutcome> {
    const reply = await this.normalizeMedia.execute({ commandId: envelope.id, data: envelope.data });
    await publishReplies(this.publisher, envelope, [reply], { source: INGESTION_SOURCE, subject: envelope.data.runId });
    return { kind: 'ack' };
  }
}
