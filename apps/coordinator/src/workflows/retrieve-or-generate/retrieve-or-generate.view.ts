import type { RetrieveOrGenerateView } from '@openpaw/contracts';
import type { RunSnapshot } from '@openpaw/saga';
import { durationMs, roundUsd, statusOf } from '../shared/run-status.js';
import type { ReadingCheck, RetrieveOrGenerateData } from './retrieve-or-generate.data.js';
import type { RetrieveOrGenerateState } from './retrieve-or-generate.states.js';

/** WorkflowResult (spec 01 Output), plus the run's state and, once known, a problem signature summary (the contract's schema). */
export type { RetrieveOrGenerateView };

export function retrieveOrGenerateViewOf(run: RunSnapshot<RetrieveOrGenerateState, RetrieveOrGenerateData>): RetrieveOrGenerateView {
  const d = run.data;
  const result = d.stage === 'succeeded' ? d.result : null;
  const signature = 'signature' in d ? d.signature : undefined;
  const waitingForRunId = d.stage === 'claiming' ? d.waitingForRunId : undefined;
  const cachedFrom = d.stage === 'succeeded' ? d.cachedFrom : undefined;
  return {
    status: statusOf(run.state),
    ...(result === null ? {} : { outcome: result.outcome }),
    output:
      result === null ? {} : { asset_version_id: result.assetVersionId, video_pending: result.videoPending, is_approximate: result.isApproximate },
    workflow_run_id: run.id,
    attempt_no: run.attemptNo,
    cost_usd: roundUsd(d.costUsd),
    duration_ms: durationMs(run, 'startedAt' in d ? d.startedAt : null),
    ...(d.stage === 'failed' ? { error_code: d.errorCode } : {}),
    state: run.state,
    ...(signature === undefined ? {} : { problem_signature: { text_sha256: signature.textSha256, subject: signature.topicTags.subject } }),
    ...(waitingForRunId === undefined ? {} : { waiting_for_run_id: waitingForRunId }),
    ...(cachedFrom === undefined ? {} : { cached_from: cachedFrom }),
    ...(d.stage === 'created' || d.reading === undefined ? {} : { reading: readingViewOf(d.reading) }),
    ...(d.stage === 'created' || d.renamedHit === undefined
      ? {}
      : { relabelled_from: { asset_version_id: d.renamedHit.assetVersionId, relabel: d.renamedHit.relabel.map((r) => ({ from: r.from, to: r.to })) } }),
  };
}

/** The uncertain reading as the owner sees it: what was read, what was doubted and, once answered, how. */
function readingViewOf(reading: ReadingCheck): NonNullable<RetrieveOrGenerateView['reading']> {
  return {
    text: reading.text,
    doubts: [...reading.doubts],
    ...(reading.answer === undefined ? {} : { answer: reading.answer.kind, solved_text: reading.answer.text }),
  };
}
