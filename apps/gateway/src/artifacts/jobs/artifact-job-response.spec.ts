import type { ArtifactJobView } from '@openpaw/contracts';
import type { RunProjection } from '../../projection/run-projection.store.js';
import { artifactJobResponseOf } from './artifact-job-response.js';

const JOB = '00000000-0000-4000-8000-0000000000a1';

function run(state: string, view: Partial<ArtifactJobView>): RunProjection {
  const full: ArtifactJobView = {
    job_id: JOB,
    status: 'pending',
    progress: 0,
    artifact_type: 'quiz',
    notebook_id: 'session123',
    source_ids: [],
    fingerprint: 'f'.repeat(64),
    sequence: 1,
    snapshot: null,
    plan: null,
    plan_computations: 0,
    retries: 0,
    result: null,
    error: null,
    validation_error: null,
    ...view,
  };
  return {
    runId: JOB,
    workflowType: 'artifact_job',
    userId: 'u',
    state,
    terminal: state === 'completed' || state === 'failed',
    attemptNo: 1,
    version: 3,
    parentRunId: null,
    view: full,
    createdAt: new Date('2026-02-08T10:30:00Z'),
    updatedAt: new Date('2026-02-08T10:30:02Z'),
    attemptStartedAt: null,
  };
}

describe('GET /ai/artifact/:id responses (spec 02)', () => {
  it('while running: job_id, status, progress, artifact_type, created_at, updated_at', () => {
    const body = artifactJobResponseOf(run('generating', { status: 'generating', progress: 20 }));
    expect(body).toEqual({
      job_id: JOB,
      status: 'generating',
      progress: 20,
      artifact_type: 'quiz',
      created_at: '2026-02-08T10:30:00.000Z',
      updated_at: '2026-02-08T10:30:02.000Z',
    });
    expect(Object.keys(body ?? {})).toEqual(['job_id', 'status', 'progress', 'artifact_type', 'created_at', 'updated_at']);
  });

  it('completed: with the result, between artifact_type and created_at', () => {
    const result = { questions: [{ question: 'Q?', options: ['a', 'b', 'c', 'd'], correct_answer: 'a', explanation: 'e', chunk_ids: ['c1'] }] };
    const body = artifactJobResponseOf(run('completed', { status: 'completed', progress: 100, result }));
    expect(Object.keys(body ?? {})).toEqual(['job_id', 'status', 'progress', 'artifact_type', 'result', 'created_at', 'updated_at']);
    expect(body).toMatchObject({ status: 'completed', progress: 100, result });
  });

  it('failed: with the error and the progress it reached', () => {
    const body = artifactJobResponseOf(run('failed', { status: 'failed', progress: 90, error: 'validation failed after 1 retry: x' }));
    expect(body).toEqual({
      job_id: JOB,
      status: 'failed',
      progress: 90,
      artifact_type: 'quiz',
      error: 'validation failed after 1 retry: x',
      created_at: '2026-02-08T10:30:00.000Z',
      updated_at: '2026-02-08T10:30:02.000Z',
    });
  });

  it('is nothing for a run of another workflow', () => {
    expect(artifactJobResponseOf({ ...run('pending', {}), view: { progress: 3 } })).toBeUndefined();
  });
});
