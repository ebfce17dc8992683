/** Injection token of the `MessagePublisher` (a `JetStreamPublisher`). */
export const MESSAGE_PUBLISHER = Symbol.for('openpaw.messaging.MessagePublisher');
/** Injection token of the module's `NatsConnection`. */
export const NATS_CONNECTION = Symbol.for('openpaw.messaging.NatsConnection');
/** Injection token of the resolved `MessagingModuleOptions`. */
export const MESSAGING_OPTIONS = Symbol.for('openpaw.messaging.MessagingModuleOptions');
