import type { RetrieveOrGenerateView } from '@openpaw/contracts';
import type { RunSnapshot } from '@openpaw/saga';
import { durationMs, roundUsd, statusOf } from '../shared/run-status.js';
import type { RetrieveOrGenerateData } from './retrieve-or-generate.data.js';
import type { RetrieveOrGenerateState } from './retrieve-or-generate.states.js';

/** WorkflowResult (spec 01 Output), plus the run's state and, once known, a problem signature summary (the contract's schema). */
export type { RetrieveOrGenerateView };

export function retrieveOrGenerateViewOf(run: RunSnapshot<RetrieveOrGenerateState, RetrieveOrGenerateData>): RetrieveOrGenerateView {
  const d = run.data;
  const result = d.result;
  return {
    status: statusOf(run.state),
    ...(result === null ? {} : { outcome: result.outcome }),
    output:
      result === null ? {} : { asset_version_id: result.assetVersionId, video_pending: result.videoPending, is_approximate: result.isApproximate },
    workflow_run_id: run.id,
    attempt_no: run.attemptNo,
    cost_usd: roundUsd(d.costUsd),
    duration_ms: durationMs(run, d.startedAt),
    ...(d.errorCode === null ? {} : { error_code: d.errorCode }),
    state: run.state,
    ...(d.signature === null ? {} : { problem_signature: { text_sha256: d.signature.textSha256, subject: d.signature.topicTags.subject } }),
    ...(d.waitingForRunId == null ? {} : { waiting_for_run_id: d.waitingForRunId }),
    ...(d.cachedFrom == null ? {} : { cached_from: d.cachedFrom }),
  };
}
