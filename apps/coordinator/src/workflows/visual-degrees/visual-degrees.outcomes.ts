import { directQueries,  type MessageData,  SelectNextExpansion,     type VisualWorldInfo } from '@openpaw/contracts';
import {
  
  
  type Decision,
  
  isReplyTo,
  
  
  
  
  
  
  
  
  
  
  type RunSnapshot,
  
  
  
  type StepLogEntry,
  
} from '@openpaw/saga';
import { chainOf, frontierOf, joined, otherEndOf, otherSide, withChain } from './visual-degrees.chains.js';
import { discover, send, verifyEdge } from './visual-degrees.commands.js';
import {
  
  type FailureReason,
  hopsVerified,
  identified,
  remaining,
  searchBudgetSpent,
  
  type VerifiedEdge,
  VISUAL_DEGREES_PARAMETERS,
  type VisualDegreesData,
  type VisualDegreesState,
  type VisualDegreesTimings,
} from './visual-degrees.data.js';
import { evidence, finalPayload, pathUpdate,  status, withEvents } from './visual-degrees.view.js';

/**
 * The decisions more than one row of the table reaches, each named by where it goes (S3 select,
 * S5 bridge, S6 succeed, S7 fail, S2 another frontier); the table lists every row's targets.
 */

type S = VisualDegreesState;
type D = VisualDegreesData;
export type Run = RunSnapshot<S, D>;
export type VisualDecision = Decision<S, D>;

const { threshold } = VISUAL_DEGREES_PARAMETERS;

export const ignore = (reason: string): VisualDecision => ({ outcome: 'ignore', reason });

export const NO_PATH_MESSAGE = (hopLimit: number, threshold: number, world?: VisualWorldInfo): string =>
  `No verified visual connection found within ${hopLimit} degrees at ≥${threshold}% confidence${world === undefined ? '' : ` in the ${world.description}`}.`;

/** S7 when a person the run connects is taken down while it runs (their name is not said: it is redacted). */
export const PERSON_TAKEN_DOWN_MESSAGE = 'A person this investigation connects was taken down from visual degrees; it stopped, and no chain is searched for them.';

/** The names the local demo world does not know, and those it does (S1 asked for someone it has never heard of). */
export interface UnknownPersons {
  readonly names: readonly string[];
  readonly known: readonly string[];
}

const unknownPersonsMessage = (unknown: UnknownPersons, world: VisualWorldInfo | undefined): string =>
  `${unknown.names.map((name) => `"${name}"`).join(' and ')} ${unknown.names.length > 1 ? 'are' : 'is'} not in the ${world?.description ?? 'local demo world'}; it knows ${unknown.known.join(', ')}.`;

/** S7 when a person the run starts from was never recognised: visual degrees connects public figures only. */
export const notPublicFigureMessage = (name: string, photos: number): string =>
  `"${name}" was not recognised as a public figure in any of the ${photos} photos found for them; visual degrees connects public figures only (people the celebrity recogniser knows).`;

/** A stopped step or a fault of the workflow: the `error` event's sanitised words for a person (its reason is beside them). */
const ERROR_MESSAGES: Partial<Record<FailureReason, string>> = {
  step_failed: 'A search or recognition step failed; the investigation stopped.',
  unexpected_error: 'The investigation stopped on an unexpected error.',
};

/** The reply belongs to the step in flight (any try of it); else it is stale. */
export const isCurrent = (run: Run, commandId: string): boolean => run.data.step !== null && isReplyTo(run, run.data.step, run.data.step.name, commandId);

/**
 * S7: the honest failure: `no_path` with its reason (and the world it searched), or an `error` with its
 * reason when a step itself failed or the workflow faulted (`cause`: what the client may read, e.g. the
 * service's error code; `detail`, in the run's failure and step log, may say more). `unknown`: S1 found a
 * name the local demo world does not know; the event lists the names it knows.
 */
export function fail(
  data: D,
  reason: FailureReason,
  detail: string,
  now: Date,
  stepName: string,
  more: { readonly unknown?: UnknownPersons; readonly cause?: string; readonly message?: string } = {},
): VisualDecision {
  const { unknown } = more;
  const unknownFields = unknown === undefined ? {} : { unknownNames: [...unknown.names], knownNames: [...unknown.known] };
  const failed = { ...data, failure: { reason, detail, ...unknownFields } };
  const errorMessage = ERROR_MESSAGES[reason];
  const body =
    errorMessage !== undefined
      ? { type: 'error' as const, data: { code: reason, reason: more.cause ?? reason, message: errorMessage } }
      : {
          type: 'no_path' as const,
          data: {
            message: more.message ?? (unknown === undefined ? NO_PATH_MESSAGE(data.hopLimit, threshold, data.world) : unknownPersonsMessage(unknown, data.world)),
            reason,
            hopDepth: hopsVerified(data),
            hopLimit: data.hopLimit,
            budgets: data.budgets,
            used: data.used,
            ...(data.world === undefined ? {} : { world: data.world }),
            ...unknownFields,
          },
        };
  return {
    outcome: 'transition',
    to: 'FAILED',
    data: withEvents(failed, now, body),
    step: stepName,
    logs: [{ step: 'decision', payload: { decision: 'finalize_failure', reason, detail, hop_depth: hopsVerified(data), used: { ...data.used } } }],
  };
}

/**
 * S3 over the frontier's remaining candidates. With no LLM call left (`maxLlmCalls: 0`, or spent
 * mid-run) the step is still sent: the service answers with the deterministic ranking at no LLM call
 * (ADR 0022: a spent LLM budget degrades the choice, it does not end the run).
 */
export function select(timings: VisualDegreesTimings, run: Run, data: D, now: Date, stepName: string, logs: StepLogEntry[] = []): VisualDecision {
  const left = remaining(data);
  const frontier = identified(frontierOf(data));
  if (frontier === undefined) return fail(data, 'no_candidates', 'the frontier was never recognised', now, stepName);
  const sent = send(timings, data, 'select', SelectNextExpansion, (step): MessageData<typeof SelectNextExpansion> => ({
    sessionId: data.sessionId,
    runId: run.id,
    step,
    target: otherEndOf(data),
    frontier,
    candidates: data.candidates.slice(0, 50).map((c) => ({ person: c.person, count: c.count, bestConfWithFrontier: c.bestConfWithFrontier })),
    hopsRemaining: Math.max(0, data.hopLimit - hopsVerified(data)),
    budgetsRemaining: left,
    ...(data.model === null ? {} : { model: data.model }),
  }));
  return { outcome: 'transition', to: 'SELECTING', data: sent.data, step: stepName, logs, effects: sent.effects };
}

/**
 * The frontier has no candidate left: the spec's alternate frontier strategy. Back one node on the
 * chain (the exhausted frontier becomes a dead end, never proposed again) and discover from there;
 * from `from` itself there is nothing left to try.
 */
export function anotherFrontier(timings: VisualDegreesTimings, run: Run, data: D, now: Date, stepName: string, stay: boolean): VisualDecision {
  const frontier = frontierOf(data);
  const chain = chainOf(data);
  if (chain.path.length <= 1) return otherSideCarriesOn(timings, run, data, now, stepName, stay);
  const deadEnds = frontier.celebrityId === undefined ? data.deadEnds : [...data.deadEnds, frontier.celebrityId];
  const shorter = { path: chain.path.slice(0, -1), edges: chain.edges.slice(0, -1) };
  const backed: D = withEvents(
    withChain({ ...data, deadEnds }, shorter),
    now,
    status(`No intermediate left from ${frontier.name}; stepping back…`),
    pathUpdate(data.side === 'from' ? shorter.path : data.path, hopsVerified(data) - 1),
  );
  const next = discover(timings, run, backed, now);
  if ('failed' in next) return fail(backed, next.failed, next.detail, now, stepName);
  const logs = [{ step: 'decision', payload: { decision: 'alternate_frontier', dead_end: frontier.name, frontier: frontierOf(backed).name } }, ...next.logs];
  return stay
    ? { outcome: 'stay', data: next.data, step: stepName, logs, effects: next.effects }
    : { outcome: 'transition', to: 'DISCOVERING', data: next.data, step: stepName, logs, effects: next.effects };
}

/**
 * A side's root has nothing left to try. One-sided, that is the end (S7). Meeting in the middle, the
 * other side carries on from its own frontier unless it is exhausted too.
 */
function otherSideCarriesOn(timings: VisualDegreesTimings, run: Run, data: D, now: Date, stepName: string, stay: boolean): VisualDecision {
  const frontier = frontierOf(data);
  const exhaustedSides = [...(data.exhaustedSides ?? []), data.side];
  const other = otherSide(data.side);
  if (data.strategy === 'one_sided' || exhaustedSides.includes(other)) return fail(data, 'no_candidates', `no verifiable intermediate from ${frontier.name}`, now, stepName);
  const switched: D = { ...data, exhaustedSides, side: other };
  const next = discover(timings, run, withEvents(switched, now, status(`No intermediate left from ${frontier.name}; searching on from ${frontierOf(switched).name}…`)), now);
  if ('failed' in next) return fail(switched, next.failed, next.detail, now, stepName);
  const logs = [{ step: 'decision', payload: { decision: 'side_exhausted', side: data.side, frontier: frontierOf(switched).name } }, ...next.logs];
  return stay
    ? { outcome: 'stay', data: next.data, step: stepName, logs, effects: next.effects }
    : { outcome: 'transition', to: 'DISCOVERING', data: next.data, step: stepName, logs, effects: next.effects };
}

/** The side to grow next: the shorter chain (`from` on a tie), never an exhausted one; one-sided, always `from`. */
export function nextSide(data: D): D['side'] {
  if (data.strategy === 'one_sided') return 'from';
  const exhausted = data.exhaustedSides ?? [];
  if (exhausted.includes('from')) return 'to';
  if (exhausted.includes('to')) return 'from';
  return data.edges.length <= data.reverseEdges.length ? 'from' : 'to';
}

/** S6: the path, its edges and the confidence maths, from the run's own data. */
export function succeed(data: D, bridge: VerifiedEdge, now: Date, stepName: string): VisualDecision {
  const full = joined(data, bridge);
  const payload = finalPayload(full.path, full.edges, data, data.world);
  return {
    outcome: 'transition',
    to: 'SUCCEEDED',
    data: withEvents({ ...data, path: full.path, edges: full.edges, reversePath: [data.to], reverseEdges: [] }, now, evidence(bridge), pathUpdate(full.path, full.edges.length), { type: 'final', data: payload }),
    step: stepName,
    logs: [{ step: 'decision', payload: { decision: 'finalize_success', path: [...payload.path], bottleneck: payload.confidenceMap.bottleneck, cumulative: payload.confidenceMap.cumulative } }],
  };
}

/** A verified edge joins the chain: the evidence card and the new path are streamed. */
export function extend(data: D, edge: VerifiedEdge, now: Date): D {
  const chain = chainOf(data);
  const extended = withChain(data, { path: [...chain.path, { name: edge.to.name, celebrityId: edge.to.celebrityId }], edges: [...chain.edges, edge] });
  return withEvents(extended, now, evidence(edge), pathUpdate(extended.path, hopsVerified(extended), extended.strategy === 'one_sided' ? undefined : extended.reversePath));
}

/** S5 after an edge to X: X ↔ B directly. */
export function bridge(timings: VisualDegreesTimings, run: Run, data: D, now: Date, stepName: string, logs: StepLogEntry[]): VisualDecision {
  if (hopsVerified(data) + 1 > data.hopLimit) return fail(data, 'hop_limit_reached', `${hopsVerified(data)} hops verified; a bridge would pass ${data.hopLimit}`, now, stepName);
  const spent = searchBudgetSpent(data);
  if (spent !== undefined) return fail(data, spent, 'no budget left to bridge toward the target', now, stepName);
  const x = frontierOf(data);
  const end = otherEndOf(data);
  const sent = verifyEdge(timings, run, withEvents(data, now, status(`Checking whether ${x.name} connects directly to ${end.name}…`)), 'bridge', x, end, directQueries(x.name, end.name));
  return { outcome: 'transition', to: 'BRIDGING', data: sent.data, step: stepName, logs, effects: sent.effects };
}
