import type { ResearchStatus } from '@openpaw/contracts';

/**
 * Spec 05's status state machine as a table, read off its diagram (the definition's table, derived
 * from its rows, must equal this: see the spec file).
 *
 *   draft                 → processing (POST /research)
 *   processing            → synthesizing (all LLMs complete) | awaiting_confirmation (some failed)
 *                           | failed (all failed: the decision matrix) | completed (all complete and the
 *                           skip rule skips the synthesis: the diagram's "skip synth" taken at once,
 *                           without a round trip to the research service; so also from retrying and
 *                           awaiting_confirmation's proceed)
 *   retrying              → processing (back to LLM processing: a retried leg is picked up), or what
 *                           processing would do when the retried legs' results settle the matrix first
 *   awaiting_confirmation → synthesizing | completed (proceed) | retrying (retry) | failed (cancel; retry past the max)
 *   synthesizing          → completed (with synthesis, or skipped) | failed (synthesis failure)
 *   failed                → retrying (failed LLMs) | synthesizing (synthesis error) | completed (nothing
 *                           to retry: idempotent) — Phase 6, "Retry from Failed"
 *
 * `completed` and `failed` are terminal; `failed` is reopened only by the human input `retry`. An
 * owner's cancel (any non-terminal state) ends in `failed` with "Cancelled by user".
 */
export const RESEARCH_STATES = ['draft', 'processing', 'retrying', 'synthesizing', 'awaiting_confirmation', 'completed', 'failed'] as const satisfies readonly ResearchStatus[];
export type ResearchState = (typeof RESEARCH_STATES)[number];

export const RESEARCH_TRANSITIONS = {
  draft: ['processing', 'failed'],
  processing: ['synthesizing', 'completed', 'awaiting_confirmation', 'failed'],
  retrying: ['processing', 'synthesizing', 'completed', 'awaiting_confirmation', 'failed'],
  awaiting_confirmation: ['synthesizing', 'completed', 'retrying', 'failed'],
  synthesizing: ['completed', 'failed'],
  failed: ['retrying', 'synthesizing', 'completed'],
} as const satisfies Partial<Record<ResearchState, readonly ResearchState[]>>;

/** States an owner's cancel may end (in `failed`, "Cancelled by user"). */
export const RESEARCH_CANCELLABLE: readonly ResearchState[] = ['draft', 'processing', 'retrying', 'awaiting_confirmation', 'synthesizing'];
