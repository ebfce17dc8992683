import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { GATEWAY_DATA_SOURCE } from './database.js';
import { preparedSql } from '@openpaw/persistence';
import { asRunChange, type RunChange, type RunTransitionEvent } from './run-change.js';
import { RunEventWriter } from './run-event-writer.js';
import type { RunProjection } from './run-projection.store.js';

/** How many recently projected events this process remembers, so it does not project one twice. */
export const REMEMBERED_EVENTS = 4_096;

/**
 * Writes one run change (`RunStateChanged` v2, or a v1 as a change of one transition) into the
 * gateway's projection (through `RunEventWriter`, which groups the changes of many runs): the timeline
 * keeps every transition (idempotent by version), the run's row keeps the newest. The write is idempotent, so the durable consumer and the live feeder may apply
 * the same event in any order.
 *
 * Both do, on the replica that holds a watcher of the run: the feeder writes through first, then the
 * consumer gets the same event. An event this process has already projected (or is projecting) is not
 * written again: the second apply waits for the first and changes nothing, as it would in the database.
 * A change is remembered under each version it carries, so the v1s of ADR 0024's deprecation window
 * are not written again after their v2 (nor the v2 after the v1 of its last version).
 */
@Injectable()
export class RunEventApplier {
  private readonly writer: RunEventWriter;
  /**
   * Events projected or being projected, by run and version, oldest first (bounded): whether the
   * write succeeded, not the row it wrote (views can be large).
   */
  private readonly projected = new Map<string, Promise<boolean>>();

  constructor(@Inject(GATEWAY_DATA_SOURCE) dataSource: DataSource) {
    // The projection is rebuilt from the events stream (its durable consumer acks only after the
    // write), so its commits need not wait for the WAL flush (ADR 0023).
    this.writer = new RunEventWriter(preparedSql(dataSource, 'gateway_run_event', { synchronousCommit: 'off' }));
  }

  /**
   * Returns the run's row as this event left it, when the event moved it; undefined when it did not
   * (the row was newer) or this process had projected the event already.
   */
  async apply(event: RunChange | RunTransitionEvent): Promise<RunProjection | undefined> {
    const change = asRunChange(event);
    const key = `${change.runId}:${change.version}`;
    const earlier = this.projected.get(key);
    // A failed earlier apply is no answer: this one writes the event itself.
    if (earlier !== undefined && (await earlier)) return undefined;
    const projecting = this.writer.write(change);
    const written = projecting.then(
      () => true,
      () => false,
    );
    const keys = new Set([...change.changes.map(({ version }) => `${change.runId}:${version}`), key]);
    for (const each of keys) this.remember(each, written);
    try {
      return await projecting;
    } catch (error) {
      for (const each of keys) if (this.projected.get(each) === written) this.projected.delete(each);
      throw error;
    }
  }

  private remember(key: string, written: Promise<boolean>): void {
    this.projected.delete(key);
    this.projected.set(key, written);
    if (this.projected.size <= REMEMBERED_EVENTS) return;
    const oldest = this.projected.keys().next();
    if (oldest.done !== true) this.projected.delete(oldest.value);
  }
}
