import type { ResearchView } from '@openpaw/contracts';
import type { RunSnapshot } from '@openpaw/saga';
import { roundUsd } from '../shared/run-status.js';
import { type Leg, type ResearchData, spentUsd } from './research.data.js';
import type { ResearchState } from './research.transitions.js';

type Run = RunSnapshot<ResearchState, ResearchData>;

function durationOf(leg: Leg): number | null {
  return leg.startedAt === null || leg.completedAt === null ? null : Math.max(0, Date.parse(leg.completedAt) - Date.parse(leg.startedAt));
}

/** The run's public view: spec 05's research document (no keys, external reports by title and size). */
export function researchViewOf(run: Run): ResearchView {
  const d = run.data;
  return {
    id: run.id,
    status: run.state,
    title: d.request.title,
    titleSource: d.request.titleSource,
    prompt: d.request.prompt,
    selectedLlms: [...d.request.selectedLlms],
    synthesisLlm: d.request.synthesisLlm,
    externalReports: d.request.externalReports.map((r) => ({ title: r.title ?? null, characters: r.content.length })),
    llmResults: d.legs.map((leg) => ({
      provider: leg.provider,
      status: leg.status,
      model: leg.model,
      result: leg.content,
      truncated: leg.truncated,
      local: leg.local,
      error: leg.error,
      errorReason: leg.errorReason,
      round: leg.round,
      startedAt: leg.startedAt,
      completedAt: leg.completedAt,
      durationMs: durationOf(leg),
      costUsd: leg.costUsd,
    })),
    synthesizedResult: d.synthesis?.content ?? null,
    synthesisModel: d.synthesis?.model ?? null,
    synthesisTruncated: d.synthesis?.truncated === true,
    synthesisAttributions: d.synthesis?.attributions ?? [],
    synthesisSkipped: d.synthesisSkipped,
    synthesisError: d.synthesisError,
    partialFailure: d.partialFailure === null ? null : { ...d.partialFailure, failedProviders: [...d.partialFailure.failedProviders] },
    retryCount: d.retryCount,
    shareInfo: d.shareInfo,
    error: d.error,
    errorKind: d.errorKind,
    errorReason: d.errorReason ?? null,
    costUsd: roundUsd(spentUsd(d)),
    startedAt: d.startedAt,
    completedAt: d.completedAt,
  };
}
