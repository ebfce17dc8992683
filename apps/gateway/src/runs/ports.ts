import type { EnvelopeMeta } from '@openpaw/contracts';
import type { MessagePublisher } from '@openpaw/messaging';
import { currentTraceparent } from '@openpaw/platform';

/** The publisher of the gateway's commands (messaging's JetStream publisher, bound in the app module). */
export const COMMAND_PUBLISHER = Symbol('openpaw.gateway.commandPublisher');
export type CommandPublisher = MessagePublisher;

/** The `source` of every envelope the gateway publishes. */
export const GATEWAY_SOURCE = '/openpaw/gateway';

/** The envelope of a command about a user's own settings (their webhook, their keys): the user is its subject; the caller's trace travels on. */
export function userCommandMeta(userId: string, correlationId: string): EnvelopeMeta {
  const traceparent = currentTraceparent();
  return { source: GATEWAY_SOURCE, correlationId, subject: userId, userId, ...(traceparent === undefined ? {} : { traceparent }) };
}
