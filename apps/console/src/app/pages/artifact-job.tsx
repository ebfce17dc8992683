import { useEffect, useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { type ArtifactJob, errorMessage } from '../api/resources.js';
import { ArtifactResultView } from '../components/artifact-result.js';
import { hrefOf } from '../routes.js';

const POLL_MS = 1000;

/** One artifact job: its status and progress (0 → 20 → 60 → 90 → 100) until it ends, then the artifact or the error. */
export function ArtifactJobPage({ jobId }: { jobId: string }) {
  const client = useGatewayClient();
  const [job, setJob] = useState<ArtifactJob | undefined>();
  const [problem, setProblem] = useState<string | undefined>();

  useEffect(() => {
    const abort = new AbortController();
    void (async () => {
      while (!abort.signal.aborted) {
        const { data, error, response } = await client.GET('/ai/artifact/{id}', { params: { path: { id: jobId } }, signal: abort.signal });
        // A just-created job reaches the gateway's projection a moment later.
        if (data === undefined && response.status !== 404) {
          setProblem(errorMessage(error, 'The job could not be read.'));
          return;
        }
        if (data !== undefined) {
          setJob(data);
          if (data.status === 'completed' || data.status === 'failed') return;
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    })().catch(() => undefined);
    return () => abort.abort();
  }, [client, jobId]);

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">
        {job === undefined ? 'Artifact job' : `Artifact job: ${job.artifact_type}`} <code class="run-id">{jobId}</code>
      </h1>
      {problem !== undefined && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {job === undefined ? (
        problem === undefined && <p role="status">Loading the job…</p>
      ) : (
        <>
          <p role="status" class="job-status" data-status={job.status}>
            Status: <strong>{job.status}</strong>
          </p>
          <label for="job-progress">Progress</label>
          <progress id="job-progress" max={100} value={job.progress}>
            {job.progress}%
          </progress>{' '}
          {job.progress}%
          {job.error !== undefined && (
            <p class="error" role="alert">
              {job.error}
            </p>
          )}
          {job.result !== undefined && <ArtifactResultView kind={job.artifact_type} result={job.result} />}
          <p>
            <a href={hrefOf({ page: 'run', runId: jobId })}>The job's run and timeline</a>
          </p>
        </>
      )}
    </section>
  );
}
