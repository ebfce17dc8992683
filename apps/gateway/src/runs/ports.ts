import type { MessagePublisher } from '@openpaw/messaging';

/** The publisher of the gateway's commands (messaging's JetStream publisher, bound in the app module). */
export const COMMAND_PUBLISHER = Symbol('openpaw.gateway.commandPublisher');
export type CommandPublisher = MessagePublisher;

/** The `source` of every envelope the gateway publishes. */
export const GATEWAY_SOURCE = '/openpaw/gateway';
