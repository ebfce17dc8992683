import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import {
  type AnyMessageDefinition,
  ArtifactStepFailed,
  ChatAnswered,
  ChatFailed,
  type Envelope,
  type MessageData,
  parseEnvelope,
  SnapshotCaptured,
  SourceIndexed,
  SourceRejected,
} from '@openpaw/contracts';
import { NATS_CONNECTION } from '@openpaw/messaging';

/** The artifacts service's answers the gateway waits for (they carry the command's id as `commandId`). */
export const AWAITED_REPLIES = [SourceIndexed, SourceRejected, ChatAnswered, ChatFailed, SnapshotCaptured, ArtifactStepFailed] as const;
type Awaited = (typeof AWAITED_REPLIES)[number];
export type AwaitedReply = { [K in Awaited['subject']]: Envelope<MessageData<Extract<Awaited, { subject: K }>>> & { type: K } }[Awaited['subject']];

/**
 * Request/reply over the event stream for the routes that answer synchronously (chat, adding a
 * source): a core NATS subscription per replica on the answer subjects (like the run events), and
 * a waiter per command id. Register the waiter before publishing the command.
 */
@Injectable()
export class ArtifactReplies implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ArtifactReplies.name);
  private readonly subscriptions: Subscription[] = [];
  private readonly waiters = new Map<string, (reply: AwaitedReply) => void>();

  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  async onModuleInit(): Promise<void> {
    for (const definition of AWAITED_REPLIES as readonly AnyMessageDefinition[]) {
      this.subscriptions.push(
        this.nc.subscribe(definition.subject, {
          callback: (error, message) => {
            if (error !== null) return;
            const parsed = parseEnvelope(definition, message.data);
            if (!parsed.ok) {
              this.logger.warn({ subject: message.subject, reason: parsed.reason }, 'ignoring an unreadable artifacts reply');
              return;
            }
            const commandId = (parsed.envelope.data as { commandId: string }).commandId;
            this.waiters.get(commandId)?.(parsed.envelope as AwaitedReply);
          },
        }),
      );
    }
    await this.nc.flush();
  }

  /**
   * Resolves with the answer to command `commandId`, or `undefined` after `timeoutMs` (or when
   * `signal` aborts). `cancel()` stops waiting (e.g. when publishing the command failed).
   */
  waitFor(commandId: string, timeoutMs: number, signal?: AbortSignal): { readonly reply: Promise<AwaitedReply | undefined>; cancel(): void } {
    let cancel: () => void = () => undefined;
    const reply = new Promise<AwaitedReply | undefined>((resolve) => {
      const finish = (value: AwaitedReply | undefined): void => {
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
