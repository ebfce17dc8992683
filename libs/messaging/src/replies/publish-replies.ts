import type { Envelope } from '@openpaw/contracts';
import type { MessagePublisher } from '../ports.js';
import { replyMetaFor } from '../reply-meta.js';
import type { Reply } from './reply.js';

/** Who answers: the service's CloudEvents source, and the subject (the run) its replies are about. */
export interface ReplyOrigin {
  readonly source: string;
  /** Default: the command's own CloudEvents subject. */
  readonly subject?: string;
}

/**
 * Publishes a command's replies, in order, each as an answer to it: its own id, the command's run
 * (correlation), user and trace, caused by the command. The one way every service answers.
 */
export async function publishReplies(publisher: MessagePublisher, command: Envelope<unknown>, replies: readonly Reply[], origin: ReplyOrigin): Promise<void> {
  for (const reply of replies) {
    const meta = replyMetaFor(command, { id: reply.id, source: origin.source, ...(origin.subject === undefined ? {} : { subject: origin.subject }) });
    await publisher.publish(reply.message, reply.data, meta);
  }
}
