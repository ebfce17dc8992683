import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { type Envelope, LibraryReferencesImported, type MessageData } from '@openpaw/contracts';
import { NATS_CONNECTION } from '@openpaw/messaging';
import { CommandReplies } from '../../runs/command-replies.js';

export type LibraryImported = Envelope<MessageData<typeof LibraryReferencesImported>>;

/** The research service's answers to library imports, for the route that answers synchronously (see `CommandReplies`). */
@Injectable()
export class LibraryReplies extends CommandReplies<LibraryImported> {
  constructor(@Inject(NATS_CONNECTION) nc: NatsConnection) {
    super(nc, [LibraryReferencesImported], LibraryReplies.name);
  }
}
