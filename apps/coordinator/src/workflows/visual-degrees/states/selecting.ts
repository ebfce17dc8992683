import { type ExpansionSelected, type MessageData, verificationQueries } from '@openpaw/contracts';
import { clearPendingRetry } from '@openpaw/saga';
import { charge, searchBudgetSpent } from '../budgets.js';
import { chosenCandidate } from '../candidates.js';
import { frontierOf } from '../chains.js';
import { meetingOf } from '../meeting.js';
import { verifyEdge } from '../commands.js';
import { fail, ignore, isCurrent, type Run, type VisualDecision } from '../outcomes.js';
import { status, withEvents } from '../stream-events.js';
import type { VisualDegreesTimings } from '../visual-degrees.states.js';

/** S3 the LLM picked the next expansion (strict JSON; the service falls back on invalid output) → S4 frontier ↔ X, or S7. */
export function expansionSelected(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof ExpansionSelected>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale ExpansionSelected');
  const data = charge(run.data, { llmCalls: d.usage.llmCalls, costUsd: d.usage.costUsd });
  const chosen = chosenCandidate(d.nextCandidates, data.candidates, (person) => meetingOf(data, person) !== undefined);
  if (chosen === undefined) return fail(data, 'no_candidates', 'no candidate to verify', now, 'expansion_selected');
  // A candidate that meets the other chain (the target, a node of that chain, or one seen beside it)
  // is the choice, whatever the reply says; a choice outside the candidates is not followed: the
  // spec's fallback ranking decides instead.
  const meeting = chosen.meets ? meetingOf(data, chosen.candidate.person) : undefined;
  const decidedBy = meeting?.kind === 'on_chain' ? 'target' : meeting !== undefined ? 'meeting' : chosen.valid ? d.decidedBy : 'fallback';
  const fallbackReason = meeting !== undefined ? undefined : chosen.valid ? d.fallbackReason : 'invalid_choice';
  const frontier = frontierOf(data);
  const x = chosen.candidate.person;
  const queries = decidedBy === 'llm' && d.searchQueries.length > 0 ? d.searchQueries.slice(0, 2) : verificationQueries(frontier.name, x.name);
  const narration =
    decidedBy === 'llm' && d.narration.trim() !== ''
      ? d.narration
      : meeting?.kind === 'on_chain'
        ? `${x.name} was seen beside ${frontier.name}; verifying that edge…`
        : meeting !== undefined
          ? `${x.name} was seen beside ${frontier.name} and on the other side's search; verifying that edge…`
          : `Trying an expansion via ${x.name}…`;
  const spent = searchBudgetSpent(data);
  if (spent !== undefined) return fail(data, spent, 'no budget left to verify a candidate', now, 'expansion_selected');
  const sent = verifyEdge(timings, run, withEvents({ ...data, verifying: { candidate: x, queries } }, now, status(narration)), 'verify', frontier, x, queries);
  return {
    outcome: 'transition',
    to: 'VERIFYING',
    data: sent.data,
    step: 'expansion_selected',
    logs: [{ step: 'decision', payload: { decision: 'expansion', decided_by: decidedBy, ...(fallbackReason === undefined ? {} : { fallback_reason: fallbackReason }), candidate: x.name, queries, narration: d.narration } }],
    effects: [...clearPendingRetry(run.data.step), ...sent.effects],
  };
}
