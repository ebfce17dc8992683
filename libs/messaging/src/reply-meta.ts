import type { Envelope, EnvelopeMeta } from '@openpaw/contracts';

/**
 * The envelope meta of a service's reply to a command: the same run (correlation) and user, caused
 * by the command, in its trace. Every service answers its commands this way; `id` is the reply's
 * deterministic id (derived from the command's), so a redelivered command gets the same reply.
 */
export function replyMetaFor(command: Envelope<unknown>, reply: { readonly id: string; readonly source: string; readonly subject?: string }): EnvelopeMeta {
  const subject = reply.subject ?? command.subject;
  return {
    id: reply.id,
    source: reply.source,
    correlationId: command.correlationid,
    causationId: command.id,
    ...(subject === undefined ? {} : { subject }),
    ...(command.userid === undefined ? {} : { userId: command.userid }),
    ...(command.traceparent === undefined ? {} : { traceparent: command.traceparent }),
  };
}
