import { Injectable } from '@nestjs/common';
import type { MessageData, RunStateChanged } from '@openpaw/contracts';
import { RunProjectionStore } from './run-projection.store.js';
import { RunTransitionStore } from './run-transition.store.js';

/**
 * Writes one run event into the gateway's projection: the timeline keeps every transition
 * (idempotent by version), the run's row keeps the newest. Both writes are idempotent, so the
 * durable consumer and the live feeder may apply the same event in any order.
 */
@Injectable()
export class RunEventApplier {
  constructor(
    private readonly runs: RunProjectionStore,
    private readonly transitions: RunTransitionStore,
  ) {}

  /** Returns whether the run's row changed. */
  async apply(event: MessageData<typeof RunStateChanged>): Promise<boolean> {
    await this.transitions.record(event);
    return this.runs.apply(event);
  }
}
