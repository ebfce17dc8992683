import type { ArtifactJobView } from '@openpaw/contracts';
import type { ArtifactJobData, ArtifactJobState } from './artifact-job.data.js';

/** The job as GET /ai/artifact/:id shows it (published with every state change). */
export function artifactJobViewOf(run: { readonly id: string; readonly state: ArtifactJobState; readonly data: ArtifactJobData }): ArtifactJobView {
  const { data } = run;
  const snapshot = 'snapshot' in data ? data.snapshot : null;
  return {
    job_id: run.id,
    status: run.state,
    progress: data.progress,
    artifact_type: data.request.artifact_type,
    notebook_id: data.request.notebook_id,
    source_ids: data.request.source_ids,
    fingerprint: data.request.fingerprint,
    sequence: data.request.sequence,
    snapshot:
      snapshot === undefined || snapshot === null
        ? null
        : {
            source_ids: snapshot.source_ids,
            chunk_ids: snapshot.chunks.map((c) => c.chunk_id),
            embedding_version: snapshot.embedding_version,
            captured_at: snapshot.captured_at,
          },
    plan: 'plan' in data ? (data.plan ?? null) : null,
    plan_computations: data.planComputations,
    retries: data.retries,
    result: data.stage === 'completed' ? data.result : null,
    error: data.stage === 'failed' ? data.error : null,
    validation_error: data.validationError,
  };
}
