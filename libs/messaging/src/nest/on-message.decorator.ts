import { SetMetadata } from '@nestjs/common';
import type { AnyMessageDefinition } from '@openpaw/contracts';
import type { MessageHandler } from '../ports.js';

export const ON_MESSAGE_METADATA = 'openpaw:messaging:on-message';

/**
 * Marks a provider method as the handler of one message. The method receives `(envelope, context)`,
 * typed from the definition, and returns a `HandlerOutcome` (or nothing, which acks). Commands must
 * belong to the module's service; events are consumed through the service's events consumer.
 *
 * ```ts
 * @OnMessage(StartRun)
 * async start(envelope: Envelope<MessageData<typeof StartRun>>, context: MessageContext) { ... }
 * ```
 */
export function OnMessage<D extends AnyMessageDefinition>(
  definition: D,
): <M extends MessageHandler<D>>(target: object, propertyKey: string | symbol, descriptor: TypedPropertyDescriptor<M>) => void {
  return (target, propertyKey, descriptor) => {
    SetMetadata(ON_MESSAGE_METADATA, definition)(target, propertyKey, descriptor);
  };
}
