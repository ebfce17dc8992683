import { Reflector } from '@nestjs/core';
import { defineEvent, type Envelope, type MessageData } from '@openpaw/contracts';
import { z } from 'zod';
import type { HandlerOutcome, MessageContext } from '../ports.js';
import { ON_MESSAGE_METADATA, OnMessage } from './on-message.decorator.js';

const Happened = defineEvent('spec', 'Happened', 1, z.object({ what: z.string() }), 'test event');

describe('@OnMessage', () => {
  it('records the definition on the method, where the module finds it', () => {
    class Handlers {
      @OnMessage(Happened)
      onHappened(envelope: Envelope<MessageData<typeof Happened>>, _context: MessageContext): Promise<HandlerOutcome> {
        return Promise.resolve(envelope.data.what === '' ? { kind: 'reject', reason: 'empty' } : { kind: 'ack' });
      }

      undecorated(): void {}
    }
    const reflector = new Reflector();
    expect(reflector.get(ON_MESSAGE_METADATA, Handlers.prototype.onHappened)).toBe(Happened);
    expect(reflector.get(ON_MESSAGE_METADATA, Handlers.prototype.undecorated)).toBeUndefined();
  });

  it('only fits methods whose envelope matches the message (checked by the compiler)', () => {
    class Mismatched {
      // @ts-expect-error: the envelope's data is { what: string }, not { count: number }
      @OnMessage(Happened)
      wrong(envelope: Envelope<{ count: number }>): Promise<void> {
        return Promise.resolve(void envelope.data.count);
      }
    }
    expect(new Reflector().get(ON_MESSAGE_METADATA, Mismatched.prototype.wrong)).toBe(Happened);
  });
});
