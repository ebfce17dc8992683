import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { type Envelope, LibraryReferencesImported, type MessageData, parseEnvelope } from '@openpaw/contracts';
import { NATS_CONNECTION } from '@openpaw/messaging';

export type LibraryImported = Envelope<MessageData<typeof LibraryReferencesImported>>;

/**
 * The research service's answers to library imports, for the route that answers synchronously: a
 * core NATS subscription per replica (like the run events) and a waiter per command id. Register
 * the waiter before publishing the command.
 */
@Injectable()
export class LibraryReplies implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(LibraryReplies.name);
  private subscription: Subscription | undefined;
  private readonly waiters = new Map<string, (reply: LibraryImported) => void>();

  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  async onModuleInit(): Promise<void> {
    this.subscription = this.nc.subscribe(LibraryReferencesImported.subject, {
      callback: (error, message) => {
        if (error !== null) return;
        const parsed = parseEnvelope(LibraryReferencesImported, message.data);
        if (!parsed.ok) {
          this.logger.warn({ subject: message.subject, reason: parsed.reason }, 'ignoring an unreadable library reply');
          return;
        }
        this.waiters.get(parsed.envelope.data.commandId)?.(parsed.envelope);
      },
    });
    await this.nc.flush();
  }

  /** Resolves with the answer to `commandId`, or `undefined` after `timeoutMs`; `cancel()` stops waiting. */
  waitFor(commandId: string, timeoutMs: number): { readonly reply: Promise<LibraryImported | undefined>; cancel(): void } {
    let cancel: () => void = () => undefined;
    const reply = new Promise<LibraryImported | undefined>((resolve) => {
      const finish = (value: LibraryImported | undefined): void => {
        clearTimeout(timer);
        this.waiters.delete(commandId);
        resolve(value);
      };
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      this.waiters.set(commandId, finish);
      cancel = () => finish(undefined);
    });
    return { reply, cancel };
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }
}
