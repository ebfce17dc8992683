import { type AnyMessageDefinition, deterministicUuid, type MessageData } from '@openpaw/contracts';

/**
 * An event answering a command: what it is (its definition), its id and its data. The id derives
 * from the command's id and the event's subject, so a redelivered command's reply has the same id
 * (consumers and JetStream's duplicate window recognise it).
 */
export interface Reply<D extends AnyMessageDefinition = AnyMessageDefinition> {
  readonly message: D;
  readonly id: string;
  readonly data: MessageData<D>;
}

/** The reply of type `message` to the command `commandId`. */
export function replyTo<D extends AnyMessageDefinition>(commandId: string, message: D, data: MessageData<D>): Reply<D> {
  return { message, id: deterministicUuid(commandId, message.subject), data };
}

/** Whether `reply` is a `message` (narrows its data). */
export function isReplyOf<D extends AnyMessageDefinition>(reply: Reply, message: D): reply is Reply<D> {
  return reply.message.subject === message.subject;
}

/** `reply` as one of `messages`, its data typed accordingly; throws when it is none of them. */
export function replyAs<const D extends readonly AnyMessageDefinition[]>(reply: Reply, ...messages: D): Reply<D[number]> {
  if (messages.some((message) => message.subject === reply.message.subject)) return reply as Reply<D[number]>;
  throw new Error(`expected a reply of ${messages.map((message) => message.subject).join(' or ')}, got ${reply.message.subject}`);
}
