import { Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { type AnyMessageDefinition, type Envelope, parseEnvelope } from '@openpaw/contracts';

/**
 * Request/reply over the event stream for the routes that answer synchronously: a core NATS
 * subscription per replica on the answer subjects (like the run events), and a waiter per command id
 * (an awaited answer carries the command's id as `commandId`, or the id a subclass's
 * `correlationIdOf` reads). `request` registers the waiter, publishes the command and awaits its
 * answer. Each service whose answers the gateway awaits has a subclass naming them.
 */
export abstract class CommandReplies<Reply extends Envelope> implements OnModuleInit, OnApplicationShutdown {
  private readonly logger: Logger;
  private readonly subscriptions: Subscription[] = [];
  private readonly waiters = new Map<string, (reply: Reply) => void>();

  protected constructor(
    private readonly nc: NatsConnection,
    private readonly answers: readonly AnyMessageDefinition[],
    name: string,
  ) {
    this.logger = new Logger(name);
  }

  async onModuleInit(): Promise<void> {
    for (const definition of this.answers) {
      this.subscriptions.push(
        this.nc.subscribe(definition.subject, {
          callback: (error, message) => {
            if (error !== null) return;
            const parsed = parseEnvelope(definition, message.data);
            if (!parsed.ok) {
              this.logger.warn({ subject: message.subject, reason: parsed.reason }, 'ignoring an unreadable reply');
              return;
            }
            // The subject was subscribed for this subclass's answers, so the envelope is one of `Reply`.
            const reply = parsed.envelope as Reply;
            this.waiters.get(this.correlationIdOf(reply))?.(reply);
          },
        }),
      );
    }
    await this.nc.flush();
  }

  /** The id of the command an answer is for: its `commandId` (an answer naming it otherwise overrides this). */
  protected correlationIdOf(reply: Reply): string {
    return (reply.data as { commandId: string }).commandId;
  }

  /**
   * Publishes command `commandId` (`publish`) and resolves with its answer, or `undefined` after
   * `timeoutMs` (or when `signal` aborts); with `timeoutMs` 0, publishes without waiting. The waiter
   * is registered before publishing, so an answer that comes at once is not missed; a failed publish
   * stops the wait and throws.
   */
  async request(commandId: string, wait: { readonly timeoutMs: number; readonly signal?: AbortSignal }, publish: () => Promise<unknown>): Promise<Reply | undefined> {
    if (wait.timeoutMs <= 0) {
      await publish();
      return undefined;
    }
    const waiting = this.waitFor(commandId, wait.timeoutMs, wait.signal);
    try {
      await publish();
    } catch (error) {
      waiting.cancel();
      throw error;
    }
    return waiting.reply;
  }

  /**
   * Resolves with the answer to command `commandId`, or `undefined` after `timeoutMs` (or when
   * `signal` aborts). `cancel()` stops waiting (e.g. when publishing the command failed).
   */
  private waitFor(commandId: string, timeoutMs: number, signal?: AbortSignal): { readonly reply: Promise<Reply | undefined>; cancel(): void } {
    let cancel: () => void = () => undefined;
    const reply = new Promise<Reply | undefined>((resolve) => {
      const finish = (value: Reply | undefined): void => {
        clearTimeout(timer);
        this.waiters.delete(commandId);
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const onAbort = (): void => finish(undefined);
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      this.waiters.set(commandId, finish);
      signal?.addEventListener('abort', onAbort, { once: true });
      cancel = () => finish(undefined);
      if (signal?.aborted === true) finish(undefined);
    });
    return { reply, cancel };
  }

  onApplicationShutdown(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
  }
}
