import { parseDurationMs, streamSettingsFromEnv } from '@openpaw/messaging';
import type { RetentionRule } from '@openpaw/persistence';
import type { StepLogArchivePolicy } from './step-log-archive.js';

/** Schemas whose services keep `command_replies` (one row per handled command: the idempotent reply). */
export const REPLY_SCHEMAS = ['ingestion', 'retrieval', 'assets', 'artifacts', 'research'] as const;

/** Longest redelivery of one message: max deliveries x the longest ack wait / backoff step in the platform (11 x 10 min, video). */
export const REDELIVERY_BOUND_MS = 11 * 10 * 60_000;

/**
 * The retention rules, horizons from the environment:
 * `OPENPAW_RETENTION_DEDUP` (coordinator inbox, services' command replies, the gateway's artifact job
 * keys; default 14d) must
 * exceed the commands/events streams' max age (a replay of what the streams hold is still
 * de-duplicated), the duplicate window and the redelivery bound;
 * `OPENPAW_RETENTION_TERMINAL_TIMERS` (timers of runs in a terminal state; default 1h).
 * Delivered outbox rows need no rule: the relay deletes each row once JetStream acknowledged it.
 */
export function retentionRules(env: NodeJS.ProcessEnv, terminalStates: readonly string[]): RetentionRule[] {
  const streams = streamSettingsFromEnv(env);
  const minimumDedup = Math.max(streams.limits.commands.maxAgeMs, streams.limits.events.maxAgeMs, streams.duplicateWindowMs, REDELIVERY_BOUND_MS);
  const dedup = parseDurationMs(env['OPENPAW_RETENTION_DEDUP'] ?? '14d', 'OPENPAW_RETENTION_DEDUP');
  const timers = parseDurationMs(env['OPENPAW_RETENTION_TERMINAL_TIMERS'] ?? '1h', 'OPENPAW_RETENTION_TERMINAL_TIMERS');
  return [
    { table: 'coordinator.inbox', column: 'processed_at', horizonMs: dedup, minimumHorizonMs: minimumDedup },
    ...REPLY_SCHEMAS.map((schema) => ({ table: `${schema}.command_replies`, column: 'created_at', horizonMs: dedup, minimumHorizonMs: minimumDedup })),
    // A leg's provider-side id lives as long as the leg's reply: a redelivery within the horizon resumes it.
    { table: 'research.background_calls', column: 'created_at', horizonMs: dedup, minimumHorizonMs: minimumDedup },
    // A client's retry of `POST /ai/chat` with its Idempotency-Key comes within minutes; the key names
    // its job as long as the platform de-duplicates anything, and is forgotten after (a reuse then starts a new job).
    { table: 'gateway.artifact_job_keys', column: 'created_at', horizonMs: dedup, minimumHorizonMs: minimumDedup },
    {
      table: 'coordinator.timers',
      column: 'fire_at',
      horizonMs: timers,
      where: 'exists (select 1 from coordinator.workflow_runs r where r.id = t.run_id and r.state = any($2::text[]))',
      params: [[...terminalStates]],
    },
  ];
}

/** Tables whose size the retention run reports (the ones above, plus what grows by design). */
export const WATCHED_TABLES = [
  'coordinator.inbox',
  'coordinator.outbox',
  'coordinator.timers',
  'coordinator.workflow_runs',
  'coordinator.workflow_step_logs',
  ...REPLY_SCHEMAS.map((schema) => `${schema}.command_replies`),
  'research.background_calls',
  'gateway.artifact_job_keys',
];

/**
 * When step logs leave PostgreSQL: `OPENPAW_RETENTION_STEP_LOGS` (default 30d) after their run
 * ended, archived to blob storage first (step-log-archive.ts); `keep` keeps them in PostgreSQL.
 */
export function stepLogArchivePolicy(env: NodeJS.ProcessEnv, terminalStates: readonly string[]): StepLogArchivePolicy | undefined {
  const raw = env['OPENPAW_RETENTION_STEP_LOGS'] ?? '30d';
  if (raw === 'keep') return undefined;
  return { horizonMs: parseDurationMs(raw, 'OPENPAW_RETENTION_STEP_LOGS'), terminalStates: [...terminalStates] };
}
