import type { MessageData, RunStateChanged } from '@openpaw/contracts';
import { openDatabase } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { gatewayMigrations } from '../projection/migrations/index.js';
import { RunProjectionEntity } from '../projection/run-projection.entity.js';

export type RunEvent = MessageData<typeof RunStateChanged>;

/** ISO times `seconds` after `origin`: specs name their events' times as offsets. */
export const secondsAfter =
  (origin: string) =>
  (seconds: number): string =>
    new Date(Date.parse(origin) + seconds * 1000).toISOString();

/**
 * A `RunStateChanged` of a test workflow at `version` (state S<version>, from S<version - 1>), by
 * `userId`, its view from `viewOf`; `overrides` set anything else.
 */
export function runEventFactory(userId: string, viewOf: (version: number) => Record<string, unknown> = (version) => ({ version })) {
  return (runId: string, version: number, occurredAt: string, overrides: Partial<RunEvent> = {}): RunEvent => ({
    runId,
    workflowType: 'TestWorkflow',
    userId,
    attemptNo: 1,
    version,
    stateBefore: version === 0 ? null : `S${version - 1}`,
    stateAfter: `S${version}`,
    terminal: false,
    stepName: `step-${version}`,
    parentRunId: null,
    view: viewOf(version),
    occurredAt,
    ...overrides,
  });
}

/** A fresh database with the gateway's schema migrated, for the projection's int specs. */
export async function openProjectionDatabase(name: string): Promise<DataSource> {
  return openDatabase({ url: await freshDatabase(name), schema: 'gateway', entities: [RunProjectionEntity], migrations: gatewayMigrations });
}
