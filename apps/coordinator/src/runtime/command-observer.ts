import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { COORDINATOR_COMMANDS_CONSUMER, CRITICAL_LANE, definitionForSubject, type Envelope, laneDurableOf, laneOf, parseSubject, STREAMS } from '@openpaw/contracts';
import { type CommandReceiptStore, consumerInfoIfExists, KvCommandReceiptStore, type MessagingLogger } from '@openpaw/messaging';
import type { CommandObservation, CommandObserver } from '@openpaw/saga';

/** A lane's backlog is read at most this often: one consumer-info request serves every timer due meanwhile. */
const BACKLOG_CACHE_MS = 250;
/** A look-up slower than this counts as "could not be read" (the step then keeps waiting). */
const LOOKUP_TIMEOUT_MS = 2_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * The commands durable a command waits on: the coordinator's own for its commands (it runs no lanes),
 * else its service's lane; a command the catalog does not know (yet) is read from its service's
 * critical lane. Undefined for a subject that is no command.
 */
export function backlogDurableOf(subject: string): string | undefined {
  const parsed = parseSubject(subject);
  if (parsed?.kind !== 'cmd') return undefined;
  if (parsed.context === 'coordinator') return COORDINATOR_COMMANDS_CONSUMER;
  const definition = definitionForSubject(subject);
  return laneDurableOf(parsed.context, (definition === undefined ? undefined : laneOf(definition)) ?? CRITICAL_LANE);
}

/**
 * The coordinator's view of a sent command when its step timer fires: the service's receipt (from
 * the receipts KV bucket) and the backlog of the lane consumer the command waits on. Failures to
 * look either up come back as nulls. An unknown backlog makes the engine wait. An unknown receipt
 * reads as "not picked up": with an empty lane the engine re-sends the command as lost, first under
 * its own id (JetStream drops that copy while the first is stored; libs/saga `applyResend`), and the
 * service answers any copy that reaches it from its kept reply. Receipts are best-effort anyway: a
 * command answered within a second gets none.
 */
export class JetStreamCommandObserver {
  readonly #backlogs = new Map<string, { readonly at: number; readonly value: Promise<number | null> }>();
  #receipts: Promise<CommandReceiptStore> | undefined;
  #jsm: Promise<JetStreamManager> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: MessagingLogger,
  ) {}

  readonly observe: CommandObserver = async (envelope: Envelope): Promise<CommandObservation> => {
    const [receipt, laneBacklog] = await Promise.all([this.#receiptOf(envelope.id), this.#backlogOf(envelope.type)]);
    return { receipt, laneBacklog };
  };

  async #receiptOf(commandId: string): Promise<CommandObservation['receipt']> {
    try {
      // Waits in the background until the bucket is provisioned; each look-up gives up after its timeout meanwhile.
      this.#receipts ??= this.#manager().then((jsm) => KvCommandReceiptStore.open(jsm)).catch((error: unknown) => {
        this.#receipts = undefined;
        throw error;
      });
      const found = await withTimeout((await this.#receipts).lookup(commandId), LOOKUP_TIMEOUT_MS);
      return found === undefined ? null : { pickedUpAt: found.pickedUpAt, deliveries: found.deliveries };
    } catch (error) {
      this.logger.warn({ commandId, err: String(error) }, 'command receipt look-up failed');
      return null;
    }
  }

  #backlogOf(subject: string): Promise<number | null> {
    const durable = backlogDurableOf(subject);
    if (durable === undefined) return Promise.resolve(null);
    const cached = this.#backlogs.get(durable);
    if (cached !== undefined && Date.now() - cached.at < BACKLOG_CACHE_MS) return cached.value;
    const value = this.#readBacklog(durable);
    this.#backlogs.set(durable, { at: Date.now(), value });
    return value;
  }

  #manager(): Promise<JetStreamManager> {
    this.#jsm ??= jetstreamManager(this.nc).catch((error: unknown) => {
      this.#jsm = undefined;
      throw error;
    });
    return this.#jsm;
  }

  async #readBacklog(durable: string): Promise<number | null> {
    try {
      const info = await withTimeout(consumerInfoIfExists(await this.#manager(), STREAMS.commands.name, durable), LOOKUP_TIMEOUT_MS);
      // No consumer yet (the service never started): its commands wait in the stream.
      if (info === undefined) return null;
      return info.num_pending + info.num_ack_pending;
    } catch (error) {
      this.logger.warn({ durable, err: String(error) }, 'lane backlog look-up failed');
      return null;
    }
  }
}
