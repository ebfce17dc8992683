import type { HeartbeatClock } from '../claim/claim-heartbeat.js';

interface Timer {
  readonly at: number;
  readonly callback: () => void;
}

/** Lets the callbacks of settled promises run (the renewals' answers), as the event loop would. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A heartbeat clock that moves only when a test says so: `advance` fires the timers that fall due,
 * in order, letting settled promises' callbacks run before each one.
 */
export class ManualHeartbeatClock implements HeartbeatClock {
  #now = 0;
  #nextId = 1;
  readonly #timers = new Map<number, Timer>();

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#nextId++;
    this.#timers.set(id, { at: this.#now + ms, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    if (typeof handle === 'number') this.#timers.delete(handle);
  }

  /** How many timers are waiting (none once a heartbeat has stopped or abandoned). */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  async advance(ms: number): Promise<void> {
    const until = this.#now + ms;
    for (;;) {
      await settle();
      const due = this.#earliestDue(until);
      if (due === undefined) break;
      this.#timers.delete(due[0]);
      this.#now = due[1].at;
      due[1].callback();
    }
    this.#now = until;
    await settle();
  }

  #earliestDue(until: number): [number, Timer] | undefined {
    let earliest: [number, Timer] | undefined;
    for (const entry of this.#timers) if (entry[1].at <= until && (earliest === undefined || entry[1].at < earliest[1].at)) earliest = entry;
    return earliest;
  }
}
