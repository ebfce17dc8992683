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
  /** Shortest gap between two polls (ms): a burst of due timers is taken in polls this far apart. */
  readonly intervalMs?: number;
  /**
   * Longest sleep (ms) when no timer is known to fall due sooner. Timers this process commits wake it
   * (`wakeBy`); this bound is for those another replica set and could not fire (it died).
   */
  readonly idleMs?: number;
  readonly batch?: number;
  readonly onLag?: (seconds: number) => void;
  readonly onError?: (error: unknown) => void;
}

/** What one poll found: how many timers it applied, and in how many ms the next one falls due (if any). */
export interface TimerPoll {
  readonly fired: number;
  readonly nextDueInMs: number | undefined;
}

/**
 * Fires durable timers as inputs. A fired timer is deleted in the same transaction that applies it
 * (see SagaStore), so a crash fires it again and the inbox makes that harmless.
 *
 * It sleeps until the earliest timer falls due (asked of PostgreSQL with each poll, or told by
 * `wakeBy` when this process commits a sooner one), never longer than `idleMs`, never polling more
 * often than `intervalMs`: an idle coordinator costs a poll a second, not ten.
 */
export class TimerPoller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly intervalMs: number;
  private readonly idleMs: number;
  private readonly batch: number;
  /** When the scheduled poll will run (epoch ms); undefined while one runs. */
  private nextPollAt: number | undefined;
  private lastPollAt = 0;
  /** The earliest wake asked for while a poll ran (epoch ms). */
  private wakeDuringPoll: number | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly apply: (inputs: readonly PendingInput[]) => Promise<void>,
    private readonly options: TimerPollerOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 100;
    this.idleMs = Math.max(this.intervalMs, options.idleMs ?? 1_000);
    this.batch = options.batch ?? 500;
  }

  start(): void {
    this.poll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
  }

  /** A timer falling due at `fireAt` was committed: poll by then (no sooner than `intervalMs` after the last poll). */
  wakeBy(fireAt: Date): void {
    if (this.stopped) return;
    const at = Math.max(fireAt.getTime(), this.lastPollAt + this.intervalMs);
    if (this.running !== undefined) {
      this.wakeDuringPoll = Math.min(this.wakeDuringPoll ?? at, at);
      return;
    }
    if (this.nextPollAt !== undefined && at < this.nextPollAt) this.schedule(at - Date.now());
  }

  /** Applies every due timer (up to `batch`); says how many, and when the next one falls due. */
  async fireDue(): Promise<TimerPoll> {
    const rows = await this.dataSource.query<
      Array<{ run_id: string | null; name: string | null; fire_at: Date | null; payload: JsonObject | null; lag: number | null; next_due_ms: number | null }>
    >(
      `select * from (
         select run_id, name, fire_at, payload, extract(epoch from now() - fire_at)::float8 as lag, null::float8 as next_due_ms
         from timers where fire_at <= now() order by fire_at limit $1) due
       union all
       select null, null, null, null, null, extract(epoch from min(fire_at) - now())::float8 * 1000 from timers where fire_at > now()`,
      [this.batch],
    );
    const due = rows.flatMap((row) =>
      row.run_id === null || row.name === null || row.fire_at === null ? [] : [{ run_id: row.run_id, name: row.name, fire_at: row.fire_at, payload: row.payload ?? {}, lag: row.lag ?? 0 }],
    );
    const nextDueInMs = rows.find((row) => row.run_id === null)?.next_due_ms ?? undefined;
    if (due.length === 0) return { fired: 0, nextDueInMs };
    this.options.onLag?.(due[0]?.lag ?? 0);
    const payloads = await Promise.all(due.map((row) => this.observed(row.name, row.payload)));
    await this.apply(
      due.map((row, i) => ({
        kind: 'input',
        meta: { messageId: `timer:${row.run_id}:${row.name}:${row.fire_at.getTime()}`, runId: row.run_id },
        input: { kind: 'timer', name: row.name, payload: payloads[i] ?? row.payload },
        firedTimer: { name: row.name, fireAt: row.fire_at },
      })),
    );
    return { fired: due.length, nextDueInMs };
  }

  private poll(): void {
    if (this.stopped) return;
    this.nextPollAt = undefined;
    this.lastPollAt = Date.now();
    let delay = this.idleMs;
    this.running = this.fireDue()
      .then(({ fired, nextDueInMs }) => {
        // A full batch: more may be due already. Otherwise sleep until the next known timer.
        delay = fired >= this.batch ? 0 : Math.min(this.idleMs, nextDueInMs ?? this.idleMs);
      })
      .catch((error: unknown) => {
        this.options.onError?.(error);
        delay = this.intervalMs;
      })
      .finally(() => {
        this.running = undefined;
        const woken = this.wakeDuringPoll;
        this.wakeDuringPoll = undefined;
        if (woken !== undefined) delay = Math.min(delay, woken - Date.now());
        this.schedule(Math.max(delay, this.lastPollAt + this.intervalMs - Date.now()));
      });
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    const delay = Math.max(0, delayMs);
    this.nextPollAt = Date.now() + delay;
    this.timer = setTimeout(() => this.poll(), delay);
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
