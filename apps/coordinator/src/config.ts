import type { StreamProvisionOptions } from '@openpaw/messaging';
import { natsUrlFromEnv, serviceStreamProvisionFromEnv } from '@openpaw/platform';
import { z } from 'zod';
import { type WorkflowConfig, workflowConfigFromEnv } from './workflows/index.js';

const env = z.object({
  OPENPAW_DATABASE_URL: z.string().min(1).default('postgres://openpaw@127.0.0.1:5432/openpaw'),
  OPENPAW_COORDINATOR_MAX_BATCH: z.coerce.number().int().positive().default(256),
  OPENPAW_COORDINATOR_CONCURRENCY: z.coerce.number().int().positive().default(2),
  OPENPAW_COORDINATOR_TIMER_INTERVAL_MS: z.coerce.number().int().positive().default(100),
  OPENPAW_COORDINATOR_TIMER_IDLE_MS: z.coerce.number().int().positive().default(1_000),
  OPENPAW_COORDINATOR_POOL_SIZE: z.coerce.number().int().positive().default(8),
  /** `on` during the deprecation window of `RunStateChanged` v1 (ADR 0024): each transition is also published as a v1. */
  OPENPAW_RUN_STATE_CHANGED_V1: z.enum(['on', 'off']).default('off'),
});

export interface CoordinatorSettings {
  readonly natsUrl: readonly string[];
  readonly databaseUrl: string;
  readonly maxBatch: number;
  readonly concurrency: number;
  readonly timerIntervalMs: number;
  /** Longest sleep of the timer poller with no timer known due sooner (timers of a replica that died). */
  readonly timerIdleMs: number;
  readonly poolSize: number;
  /** Publish `RunStateChanged` v1 beside v2 (ADR 0024's deprecation window). */
  readonly publishRunStateChangedV1: boolean;
  /** Policy and timings of the workflows (validated here, once, at bootstrap). */
  readonly workflows: WorkflowConfig;
  /** Stream provisioning at start (OPENPAW_STREAMS_*); the defaults (`create-missing`) when absent. */
  readonly streams?: StreamProvisionOptions;
}

/** The coordinator's whole configuration, validated from `source` (main.ts passes process.env, once). */
export function coordinatorSettingsFromEnv(source: NodeJS.ProcessEnv): CoordinatorSettings {
  const e = env.parse(source);
  return {
    natsUrl: natsUrlFromEnv(source),
    databaseUrl: e.OPENPAW_DATABASE_URL,
    maxBatch: e.OPENPAW_COORDINATOR_MAX_BATCH,
    concurrency: e.OPENPAW_COORDINATOR_CONCURRENCY,
    timerIntervalMs: e.OPENPAW_COORDINATOR_TIMER_INTERVAL_MS,
    timerIdleMs: e.OPENPAW_COORDINATOR_TIMER_IDLE_MS,
    poolSize: e.OPENPAW_COORDINATOR_POOL_SIZE,
    publishRunStateChangedV1: e.OPENPAW_RUN_STATE_CHANGED_V1 === 'on',
    workflows: workflowConfigFromEnv(source),
    streams: serviceStreamProvisionFromEnv(source),
  };
}
