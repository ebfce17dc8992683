import { type AnyMessageDefinition, DiscoverCandidates, DISCOVERY_TEMPLATES, discoveryQueries, type MessageData, personNameKey, VerifyEdge } from '@openpaw/contracts';
import { type Effect, firstTry, type RunSnapshot, sendTry, type StepLogEntry } from '@openpaw/saga';
import { chainOf, frontierOf, otherSide, withChain } from './visual-degrees.chains.js';
import {
  type FailureReason,
  hopsVerified,
  identified,
  type Person,
  remaining,
  searchBudgetSpent,
  type StepKind,
  VISUAL_DEGREES_PARAMETERS,
  type VisualDegreesData,
  type VisualDegreesState,
  type VisualDegreesTimings,
} from './visual-degrees.data.js';
import { pathUpdate, status, withEvents } from './visual-degrees.view.js';

/** The commands of the run's steps: each a new step number, its first try (libs/saga `sendTry`). */

type D = VisualDegreesData;
type Run = RunSnapshot<VisualDegreesState, D>;

const { threshold, imagesPerQuery } = VISUAL_DEGREES_PARAMETERS;

/** Sends the step's command (a new step number, its first try), remembering the command for retries. */
export function send(timings: VisualDegreesTimings, data: D, kind: StepKind, message: AnyMessageDefinition, build: (stepNo: number) => object): { data: D; effects: Effect[] } {
  const stepNo = data.stepNo + 1;
  const step = firstTry(`${kind}:${stepNo}`);
  const command = build(stepNo);
  return { data: { ...data, stepNo, step, command: { subject: message.subject, data: command } }, effects: [sendTry(message, command as MessageData<typeof message>, step, timings.stepTimeoutMs)] };
}

export function verifyEdge(timings: VisualDegreesTimings, run: Run, data: D, kind: 'direct' | 'verify' | 'bridge', from: Person, to: Person, queries: readonly string[]) {
  const recorded = kind === 'verify' ? data : { ...data, directSearches: [...(data.directSearches ?? []), { between: [from.name, to.name] as const, queries: [...queries] }] };
  return send(timings, recorded, kind, VerifyEdge, (step): MessageData<typeof VerifyEdge> => {
    const pathSoFar = chainOf(data).path.map(identified);
    return {
      sessionId: data.sessionId,
      runId: run.id,
      step,
      from,
      to,
      queries: [...queries],
      imagesPerQuery,
      threshold,
      budget: { searchCalls: remaining(data).searchCalls, recognitionCalls: remaining(data).recognitionCalls },
      ...(kind !== 'direct' && pathSoFar.every((p) => p !== undefined) ? { pathSoFar: pathSoFar } : {}),
    };
  });
}

/**
 * S2 from the current frontier: what it sends, or why it cannot. The one hop check on the way into
 * discovery, whichever state comes here: an expansion adds an edge to the intermediate and the bridge
 * after it one more, so both must fit in the hop limit (a target seen beside the frontier needs one).
 */
export function discover(
  timings: VisualDegreesTimings,
  run: Run,
  data: D,
  now: Date,
  given?: { readonly queries: readonly string[]; readonly why: 'deeper' | 'bridge_meeting' },
): { data: D; effects: Effect[]; logs: StepLogEntry[] } | { failed: FailureReason; detail: string } {
  const hops = hopsVerified(data);
  if (hops + 2 > data.hopLimit) return { failed: 'hop_limit_reached', detail: `${hops} hops verified; another expansion would pass ${data.hopLimit}` };
  const spent = searchBudgetSpent(data);
  if (spent !== undefined) return { failed: spent, detail: 'no budget left for discovery' };
  const frontier = frontierOf(data);
  // The other chain is never excluded: its node seen beside the frontier closes the chain there (its
  // end, the target, as the spec's last edge; a node nearer its root, a shorter chain).
  const otherChain = new Set(chainOf(data, otherSide(data.side)).path.flatMap((p) => (p.celebrityId === undefined ? [] : [p.celebrityId])));
  const ownChain = chainOf(data).path.flatMap((p) => (p.celebrityId === undefined ? [] : [p.celebrityId]));
  const excluded = [...ownChain, ...data.deadEnds, ...(frontier.celebrityId === undefined ? [] : (data.failedFrom[frontier.celebrityId] ?? []))].filter((id) => !otherChain.has(id));
  const queries = given?.queries ?? discoveryQueriesBeside(data, frontier);
  const recorded = { ...data, candidates: [], verifying: null, discoverySearches: [...(data.discoverySearches ?? []), { frontier: frontier.name, queries }] };
  const sent = send(timings, recorded, 'discover', DiscoverCandidates, (step): MessageData<typeof DiscoverCandidates> => ({
    sessionId: data.sessionId,
    runId: run.id,
    step,
    frontier,
    queries: [...queries],
    imagesPerQuery,
    threshold,
    budget: { searchCalls: remaining(data).searchCalls, recognitionCalls: remaining(data).recognitionCalls },
    exclude: [...new Set(excluded)].slice(0, 200),
  }));
  return {
    data: withEvents(sent.data, now, status('Expanding search to find strong intermediates…')),
    effects: sent.effects,
    logs: [{ step: 'decision', payload: { decision: 'discover_from', side: data.side, frontier: frontier.name, hop_depth: hopsVerified(data), excluded: excluded.length, ...(given === undefined ? {} : { [given.why]: true }) } }],
  };
}

/**
 * S2's queries from the frontier. A direct attempt (S1 or S5) that named the frontier already searched
 * photos of it: that search, run again, costs nothing (the service answers a query already run in the run
 * from its memory), so it stands in for one of the spec's example discovery queries and discovery pays
 * for one new search instead of two.
 */
export function discoveryQueriesBeside(data: D, frontier: Person): string[] {
  const key = personNameKey(frontier.name);
  const searched = (data.directSearches ?? []).filter((s) => s.between.some((name) => personNameKey(name) === key)).flatMap((s) => s.queries);
  const [first, ...rest] = discoveryQueries(frontier.name);
  const reused = searched.at(-1);
  return reused === undefined ? [first!, ...rest] : [reused, first!];
}

/**
 * The spec's discovery templates the frontier has not been searched with yet in this run, when its
 * discovery just left nothing to try and filled every page it asked for (`photosSeen`, the photos
 * read or recognised, reached the queries' pages): the engine may hold more photos of the frontier
 * than those pages showed, while a page that came back short says it has none. Undefined otherwise.
 * Queries already run cost nothing again (the service answers them from the run's memory), so only
 * the unsearched templates are sent.
 */
export function deeperDiscovery(data: D, frontier: Person, asked: readonly string[], photosSeen: number): string[] | undefined {
  // A new candidate is worth its search only with a search left to bridge from it; else the search
  // steps back, where the frontiers' untried candidates cost nothing.
  if (photosSeen < asked.length * imagesPerQuery || remaining(data).searchCalls < 2) return undefined;
  const key = personNameKey(frontier.name);
  const searched = new Set((data.discoverySearches ?? []).filter((s) => personNameKey(s.frontier) === key).flatMap((s) => s.queries));
  const unsearched = DISCOVERY_TEMPLATES.map((template) => template(frontier.name)).filter((query) => !searched.has(query));
  return unsearched.length === 0 ? undefined : unsearched.slice(0, 1);
}

/**
 * S2 within the hop limit: when another expansion would pass it, the longer chain steps back one node
 * (that node failed from its parent and is not proposed from there again) and the search goes on from
 * there, for as long as a chain has an edge to give back; only then does the limit end the run (S7).
 * Without it a search that wandered off used its hops up and stopped while shorter chains were untried.
 */
export function discoverWithinHops(timings: VisualDegreesTimings, run: Run, data: D, now: Date): ReturnType<typeof discover> {
  let current = data;
  const steppedBack: StepLogEntry[] = [];
  for (;;) {
    const next = discover(timings, run, current, now);
    if (!('failed' in next)) return { ...next, logs: [...steppedBack, ...next.logs] };
    if (next.failed !== 'hop_limit_reached') return next;
    const side = current.edges.length >= current.reverseEdges.length ? 'from' : 'to';
    const chain = chainOf(current, side);
    const dropped = chain.path.at(-1);
    const parent = chain.path.at(-2);
    if (chain.edges.length === 0 || dropped === undefined || parent === undefined) return next;
    const failedFrom =
      parent.celebrityId === undefined || dropped.celebrityId === undefined ? current.failedFrom : { ...current.failedFrom, [parent.celebrityId]: [...(current.failedFrom[parent.celebrityId] ?? []), dropped.celebrityId] };
    const shorter = withChain({ ...current, side, failedFrom }, { path: chain.path.slice(0, -1), edges: chain.edges.slice(0, -1) }, side);
    current = withEvents(shorter, now, status(`A chain through ${dropped.name} would pass ${data.hopLimit} hops; stepping back to ${parent.name}…`), pathUpdate(shorter.path, hopsVerified(shorter), shorter.strategy === 'one_sided' ? undefined : shorter.reversePath));
    steppedBack.push({ step: 'decision', payload: { decision: 'step_back', side, dropped: dropped.name, frontier: parent.name, hop_depth: hopsVerified(shorter) } });
  }
}
