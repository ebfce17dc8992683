import { artifactJobView } from '@openpaw/contracts';
import { z } from 'zod';
import type { RunProjection } from '../../projection/run-projection.store.js';

/** `GET /ai/artifact/:id`: spec 02's responses per status. */
export const artifactJobResponse = z.object({
  job_id: z.uuid(),
  status: z.enum(['pending', 'planning', 'generating', 'validating', 'completed', 'failed']),
  progress: z.int().min(0).max(100).describe('0 → 20 → 60 → 90 → 100; a failed job keeps the progress it reached.'),
  artifact_type: z.enum(['quiz', 'flashcards', 'summary']),
  result: z.record(z.string(), z.unknown()).optional().describe('Only when completed: e.g. `{ questions: [...] }` for a quiz.'),
  error: z.string().optional().describe('Only when failed.'),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type ArtifactJobResponse = z.infer<typeof artifactJobResponse>;

/**
 * The job as spec 02 shows it: `job_id, status, progress, artifact_type[, result | error], created_at,
 * updated_at`, from the run's projection (`undefined` when the run is not an artifact job).
 */
export function artifactJobResponseOf(run: RunProjection): ArtifactJobResponse | undefined {
  const view = artifactJobView.safeParse(run.view);
  if (!view.success) return undefined;
  const status = view.data.status;
  const base = { job_id: run.runId, status, progress: view.data.progress, artifact_type: view.data.artifact_type };
  const times = { created_at: run.createdAt.toISOString(), updated_at: run.updatedAt.toISOString() };
  if (status === 'completed' && view.data.result !== null) return { ...base, result: view.data.result, ...times };
  if (status === 'failed') return { ...base, error: view.data.error ?? 'failed', ...times };
  return { ...base, ...times };
}
