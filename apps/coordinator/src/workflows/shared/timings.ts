import { parseJsonSetting, validSetting } from '@openpaw/platform';
import { z } from 'zod';

const backoffSchema = z.strictObject({
  /** Delay before the first retry. */
  baseMs: z.int().positive(),
  /** Each further retry waits this many times longer (exponential backoff). */
  factor: z.number().min(1),
  maxMs: z.int().positive(),
});
/** The step idiom's backoff (libs/saga), validated here. */
export type { Backoff } from '@openpaw/saga';

const timeoutMs = z.int().positive();
const retriedStep = z.strictObject({ timeoutMs, backoff: backoffSchema });

/**
 * Step timeouts and retry backoffs of the workflows. How many retries a step gets is the spec's
 * (policy.retry_max, or a fixed count: see RETRIES); how long to wait is operations' business, so it
 * is configurable (OPENPAW_WORKFLOW_TIMINGS_JSON), e.g. short timeouts in end-to-end tests.
 */
export const workflowTimingsSchema = z.strictObject({
  /** NormalizeMedia (OCR, fetch). Spec: exponential 1 s, 4 s, 16 s. */
  ingest: retriedStep,
  /** SearchSolutions. */
  retrieve: retriedStep,
  /** RegisterSolution. */
  register: retriedStep,
  /** IndexDocument inside retrieve_or_generate: on timeout the run succeeds and reindexes in the background. */
  index: z.strictObject({ timeoutMs }),
  /** GenerateSolution (one LLM attempt). */
  generate: retriedStep,
  /** RenderVideo. */
  render: retriedStep,
  /** IndexDocument inside reindex_asset. */
  reindex: retriedStep,
});
export type WorkflowTimings = z.infer<typeof workflowTimingsSchema>;

export const DEFAULT_WORKFLOW_TIMINGS: WorkflowTimings = {
  ingest: { timeoutMs: 30_000, backoff: { baseMs: 1_000, factor: 4, maxMs: 300_000 } },
  retrieve: { timeoutMs: 10_000, backoff: { baseMs: 1_000, factor: 2, maxMs: 30_000 } },
  register: { timeoutMs: 10_000, backoff: { baseMs: 1_000, factor: 2, maxMs: 30_000 } },
  index: { timeoutMs: 10_000 },
  generate: { timeoutMs: 120_000, backoff: { baseMs: 2_000, factor: 2, maxMs: 60_000 } },
  render: { timeoutMs: 300_000, backoff: { baseMs: 5_000, factor: 2, maxMs: 120_000 } },
  reindex: { timeoutMs: 10_000, backoff: { baseMs: 5_000, factor: 2, maxMs: 300_000 } },
};

/** Fixed retry counts from the spec's retry table (the others come from policy.retry_max). */
export const RETRIES = {
  /** RETRIEVING (Qdrant): 3, exponential. */
  retrieve: 3,
  /** REGISTERING (Postgres): 5, exponential. */
  register: 5,
  /** VideoWorkflow render: up to 3 retries. */
  render: 3,
} as const;

/** INDEXING background retry: the reindex_asset run makes up to 5 attempts. */
export const REINDEX_MAX_ATTEMPTS = 5;

const stepPatch = z.strictObject({ timeoutMs: timeoutMs.optional(), backoff: backoffSchema.partial().optional() });
const timingsPatchSchema = z.strictObject({
  ingest: stepPatch.optional(),
  retrieve: stepPatch.optional(),
  register: stepPatch.optional(),
  index: z.strictObject({ timeoutMs: timeoutMs.optional() }).optional(),
  generate: stepPatch.optional(),
  render: stepPatch.optional(),
  reindex: stepPatch.optional(),
});

const TIMINGS_SETTING = 'OPENPAW_WORKFLOW_TIMINGS_JSON';

/** DEFAULT_WORKFLOW_TIMINGS with `OPENPAW_WORKFLOW_TIMINGS_JSON` (any part of it) applied; throws when invalid. */
export function workflowTimingsFromEnv(env: NodeJS.ProcessEnv): WorkflowTimings {
  const p = parseJsonSetting(TIMINGS_SETTING, env[TIMINGS_SETTING], timingsPatchSchema);
  if (p === undefined) return DEFAULT_WORKFLOW_TIMINGS;
  const d = DEFAULT_WORKFLOW_TIMINGS;
  const step = (base: WorkflowTimings['ingest'], over: z.infer<typeof stepPatch> | undefined): WorkflowTimings['ingest'] => ({
    timeoutMs: over?.timeoutMs ?? base.timeoutMs,
    backoff: { ...base.backoff, ...over?.backoff },
  });
  return validSetting(TIMINGS_SETTING, workflowTimingsSchema, {
    ingest: step(d.ingest, p.ingest),
    retrieve: step(d.retrieve, p.retrieve),
    register: step(d.register, p.register),
    index: { timeoutMs: p.index?.timeoutMs ?? d.index.timeoutMs },
    generate: step(d.generate, p.generate),
    render: step(d.render, p.render),
    reindex: step(d.reindex, p.reindex),
  });
}
