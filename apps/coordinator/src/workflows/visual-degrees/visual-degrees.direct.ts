import { type EdgeRefuted, type EdgeVerified, type MessageData } from '@openpaw/contracts';
import { clearPendingRetry } from '@openpaw/saga';
import { chainOf, meetingInBridge, otherChainCutTo, otherEndOf, otherSide, withChain } from './visual-degrees.chains.js';
import { discover, discoverWithinHops } from './visual-degrees.commands.js';
import { budgetReason, charge, learn, VISUAL_DEGREES_PARAMETERS, type VisualDegreesData, type VisualDegreesTimings } from './visual-degrees.data.js';
import { fail, ignore, isCurrent, nextSide, type Run, succeed, type VisualDecision } from './visual-degrees.outcomes.js';
import { partialEvidence, status, withEvents } from './visual-degrees.view.js';

/**
 * The rows of the direct attempts (spec 03 S1 A ↔ B, S5 X ↔ the other end): one search for a photo of
 * both; verified, the chain is whole (S6); refuted, the search expands (S2) or ends (S7). The
 * definition's table (visual-degrees.definition.ts) routes their replies here.
 */

/** S1 A ↔ B verified → S6. */
export function directEdgeVerified(run: Run, d: MessageData<typeof EdgeVerified>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale EdgeVerified');
  const from = learn(run.data.from, d.edge.from);
  const to = learn(run.data.to, d.edge.to);
  const data = charge({ ...run.data, from, to, path: [from], reversePath: [to] }, d.usage);
  return succeed(data, d.edge, now, 'direct_edge_verified');
}

/** S1 A ↔ B refuted → S2 (discover from A), or S7 when a budget is spent or the local demo world knows nobody by a name. */
export function directEdgeRefuted(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof EdgeRefuted>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale EdgeRefuted');
  const from = learn(run.data.from, d.from);
  const to = learn(run.data.to, d.to);
  const data = charge({ ...run.data, from, to, path: [from], reversePath: [to] }, d.usage);
  if (d.notInWorld !== undefined) {
    const unknown = { names: d.notInWorld.names, known: d.notInWorld.known };
    return fail(data, 'unknown_person', `not in the ${data.world?.description ?? 'local demo world'}: ${unknown.names.join(', ')}`, now, 'direct_edge_refuted', { unknown });
  }
  if (d.reason === 'budget_exhausted') return fail(data, budgetReason(d.budgetExhausted), 'budget spent on the direct attempt', now, 'direct_edge_refuted');
  const partial = partialEvidence(from, to, d.partialEvidence);
  const shown = partial === undefined ? data : withEvents(partial.photo === undefined ? data : { ...data, partialPhotos: [...(data.partialPhotos ?? []), partial.photo] }, now, partial.event);
  // One-sided, no chain grows from B, so nothing would ever check that B is a public figure: on the
  // real web, a B the direct attempt's photos did not show at the threshold (the reply names the id of
  // a person they showed) is discovered once first, and the rule of a side's root applies to B as to A.
  const checkB = shown.strategy === 'one_sided' && shown.world === undefined && to.celebrityId === undefined;
  const next = discover(timings, run, checkB ? { ...shown, side: 'to' } : shown, now);
  if ('failed' in next) return fail(shown, next.failed, next.detail, now, 'direct_edge_refuted');
  return { outcome: 'transition', to: 'DISCOVERING', data: next.data, step: 'direct_edge_refuted', logs: next.logs, effects: [...clearPendingRetry(run.data.step), ...next.effects] };
}

/**
 * S5 X ↔ B verified → S6 (also S4 when X was on the other chain, seen beside the frontier in S2: `ended`
 * is the run's data with that chain ending at X).
 */
export function targetReached(run: Run, d: MessageData<typeof EdgeVerified>, now: Date, stepName = 'target_reached', ended = run.data): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale EdgeVerified');
  const other = chainOf(ended, otherSide(ended.side));
  const end = learn(otherEndOf(ended), d.edge.to);
  const data = charge(withChain(ended, { path: [...other.path.slice(0, -1), end], edges: other.edges }, otherSide(ended.side)), d.usage);
  return succeed({ ...data, candidates: [], verifying: null }, d.edge, now, stepName);
}

/** S5 X ↔ B refuted → S2 expanding again, stepping a chain back when the hop depth does not allow it (`discoverWithinHops`), else S7. */
export function bridgeRefuted(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof EdgeRefuted>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale EdgeRefuted');
  const data = withEvents(charge(run.data, d.usage), now, status('No direct edge found; expanding again…'));
  if (d.reason === 'budget_exhausted') return fail(data, budgetReason(d.budgetExhausted), 'budget spent bridging toward the target', now, 'bridge_refuted');
  const met = bridgeMeeting(timings, run, data, d, now);
  if (met !== undefined) return { outcome: 'transition', to: 'DISCOVERING', data: met.data, step: 'bridge_refuted', logs: met.logs, effects: [...clearPendingRetry(run.data.step), ...met.effects] };
  const next = discoverWithinHops(timings, run, { ...data, side: nextSide(data) }, now);
  if ('failed' in next) return fail(data, next.failed, next.detail, now, 'bridge_refuted');
  return { outcome: 'transition', to: 'DISCOVERING', data: next.data, step: 'bridge_refuted', logs: next.logs, effects: [...clearPendingRetry(run.data.step), ...next.effects] };
}

/**
 * S5 refuted, but its photos showed the chains meet before their ends (`meetingInBridge`, ADR 0022 rule
 * 9): S2 from the node they showed beside the bridge's end, its chain cut back to it (the cut nodes'
 * evidence cards stay in the stream), reading the bridge's search again (no new search). Undefined when
 * the photos showed no such meeting, or the hop check refuses the discovery.
 */
function bridgeMeeting(timings: VisualDegreesTimings, run: Run, data: VisualDegreesData, d: MessageData<typeof EdgeRefuted>, now: Date): Exclude<ReturnType<typeof discover>, { failed: unknown }> | undefined {
  const met = meetingInBridge(data, d.partialEvidence, VISUAL_DEGREES_PARAMETERS.threshold);
  if (met === undefined) return undefined;
  // The chain the node is on is "the other chain" of the side across from it: cut it back there.
  const shown = met.side === data.side ? otherEndOf(data) : chainOf(data).path.at(-1);
  const node = chainOf(data, met.side).path[met.at]?.name ?? '';
  const cut = withEvents(
    { ...otherChainCutTo({ ...data, side: otherSide(met.side) }, met.at, now), side: met.side },
    now,
    status(`A photo of that search showed ${shown?.name ?? ''} beside ${node}; searching from ${node}…`),
  );
  const next = discover(timings, run, cut, now, { queries: [met.query], why: 'bridge_meeting' });
  if ('failed' in next) return undefined;
  return { ...next, logs: [{ step: 'decision', payload: { decision: 'bridge_meeting', side: met.side, frontier: node, query: met.query } }, ...next.logs] };
}
