import type { DataSource } from 'typeorm';
import type { Envelope } from '@openpaw/contracts';
import type { CommandObserver } from './command-observation.js';
import type { JsonObject } from './definition.js';
import { STEP_TIMER_PREFIX } from './step-timers.js';
import type { PendingInput } from './store/saga-store.js';

export interface TimerPollerOptions {
  /**
   * Observes the command of a step timer (`resend:<key>`) before it fires, so the engine can tell a
   * command waiting in its lane from a lost one. Without it, step timeouts run from the send.
   */
  readonly observeCommand?: CommandObserver;
  readonly intervalMs?: number;
  readonly batch?: number;
  readonly onLag?: (seconds: number) => void;
  readonly onError?: (error: unknown) => void;
}

/**
 * Fires durable timers as inputs. A fired timer is deleted in the same transaction that applies it
 * (see SagaStore), so a crash fires it again and the inbox makes that harmless.
 */
export class TimerPoller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly intervalMs: number;
  private readonly batch: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly apply: (inputs: readonly PendingInput[]) => Promise<void>,
    private readonly options: TimerPollerOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 100;
    this.batch = options.batch ?? 500;
  }

  start(): void {
    const loop = (): void => {
      if (this.stopped) return;
      this.running = this.fireDue()
        .catch((error: unknown) => this.options.onError?.(error))
        .then(() => undefined)
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.timer = setTimeout(loop, this.intervalMs);
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
  }

  /** Applies every due timer; returns how many were due. */
  async fireDue(): Promise<number> {
    const rows = await this.dataSource.query<Array<{ run_id: string; name: string; fire_at: Date; payload: JsonObject; lag: number }>>(
      `select run_id, name, fire_at, payload, extract(epoch from now() - fire_at)::float8 as lag
       from timers where fire_at <= now() order by fire_at limit $1`,
      [this.batch],
    );
    if (rows.length === 0) return 0;
    this.options.onLag?.(rows[0]?.lag ?? 0);
    const payloads = await Promise.all(rows.map((row) => this.observed(row.name, row.payload)));
    await this.apply(
      rows.map((row, i) => ({
        kind: 'input',
        meta: { messageId: `timer:${row.run_id}:${row.name}:${row.fire_at.getTime()}`, runId: row.run_id },
        input: { kind: 'timer', name: row.name, payload: payloads[i] ?? row.payload },
        firedTimer: { name: row.name, fireAt: row.fire_at },
      })),
    );
    return rows.length;
  }

  /** A step timer's payload with what was observed of its command; any other timer's unchanged. */
  private async observed(name: string, payload: JsonObject): Promise<JsonObject> {
    const observe = this.options.observeCommand;
    const envelope = payload['envelope'];
    if (observe === undefined || !name.startsWith(STEP_TIMER_PREFIX) || payload['from'] === 'send' || typeof envelope !== 'object' || envelope === null) return payload;
    const observation = await observe(envelope as Envelope);
    return { ...payload, observation: { ...observation } };
  }
}
