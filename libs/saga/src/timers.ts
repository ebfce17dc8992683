import type { DataSource } from 'typeorm';
import type { JsonObject } from './definition.js';
import type { PendingInput } from './store/saga-store.js';

export interface TimerPollerOptions {
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
    await this.apply(
      rows.map((row) => ({
        kind: 'input',
        meta: { messageId: `timer:${row.run_id}:${row.name}:${row.fire_at.getTime()}`, runId: row.run_id },
        input: { kind: 'timer', name: row.name, payload: row.payload },
        firedTimer: { name: row.name, fireAt: row.fire_at },
      })),
    );
    return rows.length;
  }
}
