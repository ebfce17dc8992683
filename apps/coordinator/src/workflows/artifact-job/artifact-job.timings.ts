import { parseJsonSetting } from '@openpaw/platform';
import { z } from 'zod';

/**
 * Step timeouts (from the command's pickup, libs/saga's step idiom) of the artifact job (operations' business, so configurable with
 * `OPENPAW_ARTIFACT_JOB_TIMINGS_JSON`, e.g. shorter in end-to-end tests). How many validation retries
 * a job gets is the spec's (one), not configuration; how often a transient step failure is retried is.
 */
export const artifactJobTimingsSchema = z.strictObject({
  /** CaptureSnapshot (retrieval over the notebook's chunks). */
  snapshotTimeoutMs: z.int().positive(),
  /** PlanArtifact (one structured LLM call). */
  planTimeoutMs: z.int().positive(),
  /** GenerateArtifact (one structured LLM call). */
  generateTimeoutMs: z.int().positive(),
  /** ValidateArtifact (pure validators). */
  validateTimeoutMs: z.int().positive(),
  /** The retry's wait in `pending` before a worker takes the job again. */
  retryDelayMs: z.int().nonnegative(),
  /** Chunks in the retrieval snapshot (the spec's k). */
  snapshotK: z.int().min(1).max(50),
  /** Tries of a plan or generate step that failed transiently (the model unavailable after the provider's own retries, a step timeout). */
  maxStepTries: z.int().min(1).max(10),
  /** Backoff between those tries: baseMs × factor^(retry − 1), at most maxMs. */
  stepBackoff: z.strictObject({ baseMs: z.int().nonnegative(), factor: z.number().min(1), maxMs: z.int().nonnegative() }),
});
export type ArtifactJobTimings = z.infer<typeof artifactJobTimingsSchema>;

export const DEFAULT_ARTIFACT_JOB_TIMINGS: ArtifactJobTimings = {
  snapshotTimeoutMs: 15_000,
  planTimeoutMs: 90_000,
  generateTimeoutMs: 120_000,
  validateTimeoutMs: 15_000,
  retryDelayMs: 1_000,
  snapshotK: 5,
  maxStepTries: 3,
  stepBackoff: { baseMs: 2_000, factor: 4, maxMs: 30_000 },
};

/** The defaults with `OPENPAW_ARTIFACT_JOB_TIMINGS_JSON` (any part of it) applied; throws when invalid. */
export function artifactJobTimingsFromEnv(env: NodeJS.ProcessEnv): ArtifactJobTimings {
  const patch = parseJsonSetting('OPENPAW_ARTIFACT_JOB_TIMINGS_JSON', env['OPENPAW_ARTIFACT_JOB_TIMINGS_JSON'], artifactJobTimingsSchema.partial());
  return patch === undefined ? DEFAULT_ARTIFACT_JOB_TIMINGS : artifactJobTimingsSchema.parse({ ...DEFAULT_ARTIFACT_JOB_TIMINGS, ...patch });
}
