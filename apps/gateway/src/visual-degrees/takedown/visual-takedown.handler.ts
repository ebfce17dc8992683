import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { type Envelope, type MessageData, TakeDownVisualPerson, VisualPersonTakenDown } from '@openpaw/contracts';
import { NATS_CONNECTION } from '@openpaw/messaging';
import { currentTraceparent } from '@openpaw/platform';
import { CommandReplies } from '../../runs/command-replies.js';
import { COMMAND_PUBLISHER, type CommandPublisher, GATEWAY_SOURCE } from '../../runs/ports.js';

/** How long the route waits for visual-search to report the takedown (it writes one record, purges a cache and deletes pictures). */
export const VISUAL_TAKEDOWN_WAIT_MS = 30_000;

/** visual-search's answer to `TakeDownVisualPerson` (see `CommandReplies`). */
@Injectable()
export class VisualTakedownReplies extends CommandReplies<Envelope<MessageData<typeof VisualPersonTakenDown>>> {
  constructor(@Inject(NATS_CONNECTION) nc: NatsConnection) {
    super(nc, [VisualPersonTakenDown], VisualTakedownReplies.name);
  }
}

/**
 * An operator's takedown: `TakeDownVisualPerson` to visual-search, which runs the same handler as the
 * `visual-takedown` tool, and its `VisualPersonTakenDown`, awaited. `undefined` when it did not come in
 * time (the command stays queued and is carried out when the service takes it; sending it again is harmless).
 */
@Injectable()
export class VisualTakedownHandler {
  constructor(
    private readonly replies: VisualTakedownReplies,
    @Inject(COMMAND_PUBLISHER) private readonly publisher: CommandPublisher,
  ) {}

  async execute(request: MessageData<typeof TakeDownVisualPerson>, wait: { readonly timeoutMs: number; readonly signal?: AbortSignal } = { timeoutMs: VISUAL_TAKEDOWN_WAIT_MS }): Promise<MessageData<typeof VisualPersonTakenDown> | undefined> {
    const commandId = randomUUID();
    const traceparent = currentTraceparent();
    const reply = await this.replies.request(commandId, wait, () =>
      this.publisher.publish(TakeDownVisualPerson, request, {
        id: commandId,
        source: GATEWAY_SOURCE,
        correlationId: commandId,
        userId: request.requestedBy,
        ...(traceparent === undefined ? {} : { traceparent }),
      }),
    );
    return reply?.data;
  }
}
