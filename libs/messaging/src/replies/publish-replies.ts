import { type Envelope, envelopeOfValidData } from '@openpaw/contracts';
import type { MessagePublisher } from '../ports.js';
import { replyMetaFor } from '../reply-meta.js';
import { activeTraceHeaders } from '../trace-context.js';
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
 * Replies are built from typed data and were validated when kept (or restored): they are not parsed
 * a second time on the way out; the consumer validates each on the way in.
 */
export async function publishReplies(publisher: MessagePublisher, command: Envelope<unknown>, replies: readonly Reply[], origin: ReplyOrigin): Promise<void> {
  for (const reply of replies) {
    const meta = replyMetaFor(command, { id: reply.id, source: origin.source, ...(origin.subject === undefined ? {} : { subject: origin.subject }) });
    const envelope = envelopeOfValidData(reply.message, reply.data, meta.traceparent === undefined ? { ...meta, ...activeTraceHeaders() } : meta);
    await publisher.publishEnvelope(envelope);
  }
}
