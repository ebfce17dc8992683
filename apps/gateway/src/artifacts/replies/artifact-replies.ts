import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  ArtifactStepFailed,
  ChatAnswered,
  ChatFailed,
  type Envelope,
  type MessageData,
  SnapshotCaptured,
  SourceIndexed,
  SourceRejected,
} from '@openpaw/contracts';
import { NATS_CONNECTION } from '@openpaw/messaging';
import { CommandReplies } from '../../runs/command-replies.js';

/** The artifacts service's answers the gateway waits for (they carry the command's id as `commandId`). */
export const AWAITED_REPLIES = [SourceIndexed, SourceRejected, ChatAnswered, ChatFailed, SnapshotCaptured, ArtifactStepFailed] as const;
type Awaited = (typeof AWAITED_REPLIES)[number];
export type AwaitedReply = { [K in Awaited['subject']]: Envelope<MessageData<Extract<Awaited, { subject: K }>>> & { type: K } }[Awaited['subject']];

/** The artifacts service's answers to chat, source and snapshot commands (see `CommandReplies`). */
@Injectable()
export class ArtifactReplies extends CommandReplies<AwaitedReply> {
  constructor(@Inject(NATS_CONNECTION) nc: NatsConnection) {
    super(nc, AWAITED_REPLIES, ArtifactReplies.name);
  }
}
