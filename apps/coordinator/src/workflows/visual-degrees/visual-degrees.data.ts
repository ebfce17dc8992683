import { type EdgeVerified, type MessageData, VISUAL_DEGREES_MAX_HOPS, type VisualDegreesEvidenceCard, type VisualDegreesNoPathReason, type VisualDegreesPartialEvidence, type VisualWorldInfo, visualDegreesRequest, type visualPerson } from '@openpaw/contracts';
import type { Backoff, JsonObject, RunSnapshot, StepProgress } from '@openpaw/saga';
import type { z } from 'zod';

/**
 * visual_degrees' data (spec 03): its states and timings, the run's data (the source of truth) as S0 makes
 * it, its budgets, and the persons it learns. The table is in visual-degrees.definition.ts.
 */

/** Spec 03's worker states S0–S7 (see visual-degrees.definition.ts for the table). */
export const VISUAL_DEGREES_STATES = ['INITIALIZING', 'DIRECT_EDGE', 'DISCOVERING', 'SELECTING', 'VERIFYING', 'BRIDGING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
export type VisualDegreesState = (typeof VISUAL_DEGREES_STATES)[number];


export interface VisualDegreesTimings {
  /** A step's timeout, from the command's pickup on the `visual` lane. */
  readonly stepTimeoutMs: number;
  readonly backoff: Backoff;
  /** Retries of a step that failed retryably or timed out. */
  readonly retries: number;
}

export const DEFAULT_VISUAL_DEGREES_TIMINGS: VisualDegreesTimings = { stepTimeoutMs: 60_000, backoff: { baseMs: 1_000, factor: 2, maxMs: 10_000 }, retries: 2 };

/** Spec 03's fixed parameters (MVP defaults). */
export const VISUAL_DEGREES_PARAMETERS = { maxHops: VISUAL_DEGREES_MAX_HOPS, threshold: 80, imagesPerQuery: 5 } as const;

/** Spec 03's recommended budgets, per run (options may lower or raise them within the caps). */
export const DEFAULT_VISUAL_BUDGETS = { maxSearchCalls: 20, maxRecognitionCalls: 120, maxLlmCalls: 8, maxRuntimeMs: 300_000 } as const;


export type Person = z.infer<typeof visualPerson>;
export interface IdentifiedPerson {
  readonly name: string;
  readonly celebrityId: string;
}
export type VerifiedEdge = MessageData<typeof EdgeVerified>['edge'];

export interface Budgets {
  readonly maxSearchCalls: number;
  readonly maxRecognitionCalls: number;
  readonly maxLlmCalls: number;
  readonly maxRuntimeMs: number;
}

export interface Usage {
  readonly searchCalls: number;
  readonly recognitionCalls: number;
  readonly llmCalls: number;
  readonly imagesSkipped: number;
  readonly costUsd: number;
}

export type StepKind = 'direct' | 'discover' | 'select' | 'verify' | 'bridge';

/** A candidate for the frontier: verified co-appearance (its evidence), with the spec's ranking figures. */
export interface Candidate {
  readonly person: IdentifiedPerson;
  readonly count: number;
  readonly bestConfWithFrontier: number;
}

/** Why S7: the contract's list (the view and the API document every reason; the doc comment there says what each means). */
export type FailureReason = VisualDegreesNoPathReason;

/** The spec's streaming events, kept in run data in order (`seq` is the SSE id, so a client resumes). */
export type StreamEvent =
  | { readonly seq: number; readonly type: 'status'; readonly at: string; readonly data: { readonly message: string } }
  | { readonly seq: number; readonly type: 'evidence'; readonly at: string; readonly data: EvidenceCard | PartialEvidence }
  | { readonly seq: number; readonly type: 'path_update'; readonly at: string; readonly data: { readonly path: readonly string[]; readonly hops: number; readonly reversePath?: readonly string[] } }
  | { readonly seq: number; readonly type: 'final'; readonly at: string; readonly data: FinalPayload }
  | { readonly seq: number; readonly type: 'no_path'; readonly at: string; readonly data: NoPathPayload }
  | { readonly seq: number; readonly type: 'error'; readonly at: string; readonly data: { readonly code: string; readonly reason: string; readonly message: string } }
  | { readonly seq: number; readonly type: 'cancelled'; readonly at: string; readonly data: { readonly message: string; readonly reason: string | null; readonly hopDepth: number; readonly used: Usage } };

export type StreamEventType = StreamEvent['type'];

/** A verified edge as the client sees it: the contract's evidence card (the console's type is generated from it). */
export type EvidenceCard = Readonly<VisualDegreesEvidenceCard>;
/** Photos of the direct attempt that showed one side only (spec 03 S1's optional partial evidence). */
export type PartialEvidence = Readonly<VisualDegreesPartialEvidence>;

export interface FinalPayload {
  readonly path: readonly string[];
  readonly edges: readonly { readonly from: string; readonly to: string; readonly edgeConf: number; readonly evidence: readonly { readonly imageUrl: string; readonly sourcePageUrl: string | null; readonly confidenceFrom: number; readonly confidenceTo: number; readonly thumbnail: string | null }[] }[];
  readonly confidenceMap: { readonly edges: Readonly<Record<string, number>>; readonly bottleneck: number; readonly cumulative: number };
  readonly graph: { readonly nodes: readonly { readonly id: string; readonly name: string }[]; readonly edges: readonly { readonly source: string; readonly target: string; readonly edgeConf: number }[] };
  /** The local demo world the chain was found in (absent on the real web). */
  readonly world?: VisualWorldInfo;
  /** The run's budgets and what it spent of them (searches, recognitions, LLM calls, images not recognised again, cost). */
  readonly budgets: Budgets;
  readonly used: Usage;
}

export interface NoPathPayload {
  readonly message: string;
  readonly reason: FailureReason;
  readonly hopDepth: number;
  readonly hopLimit: number;
  readonly budgets: Budgets;
  readonly used: Usage;
  /** The local demo world searched (absent on the real web). */
  readonly world?: VisualWorldInfo;
  /** `unknown_person`: the names asked that the world does not know, and every name it knows. */
  readonly unknownNames?: readonly string[];
  readonly knownNames?: readonly string[];
}

/** A photo streamed as partial evidence, and the celebrity ids of everyone the recogniser named in it. */
export interface PartialPhoto {
  readonly imageUrl: string;
  readonly shows: readonly string[];
}

/** A direct attempt's search (S1, S5): the two persons' names and the queries it ran. */
export interface DirectSearch {
  readonly between: readonly [string, string];
  readonly queries: readonly string[];
}

/** A discovery's search (S2): the frontier's name and the queries it ran. */
export interface DiscoverySearch {
  readonly frontier: string;
  readonly queries: readonly string[];
}
/**
 * The run's data, the source of truth (run memory in KV is a cache that may expire): the request, its
 * limits, what has been spent, the verified chain from `from` to the frontier, the frontier's candidates
 * and failures, the step in flight, and the stream events so far.
 */
export interface VisualDegreesData {
  readonly sessionId: string;
  readonly from: Person;
  readonly to: Person;
  readonly hopLimit: number;
  readonly budgets: Budgets;
  readonly model: string | null;
  readonly used: Usage;
  readonly startedAt: string | null;
  /** The saga's step counter (the commands' `step`; with the run id, the service's idempotency key). */
  readonly stepNo: number;
  readonly step: StepProgress | null;
  /** The step's command as first sent, re-sent as is by a retry (a new try, so a new id). */
  readonly command: { readonly subject: string; readonly data: object } | null;
  /** One-sided (spec 03's MVP) or meeting in the middle (its optional frontier strategy). */
  readonly strategy: 'one_sided' | 'meet_in_the_middle';
  /** The chain being expanded (see visual-degrees.chains.ts). */
  readonly side: 'from' | 'to';
  /** The verified chain from `from`: path[0] is `from`; edges[i] joins path[i] and path[i+1]. */
  readonly path: readonly Person[];
  readonly edges: readonly VerifiedEdge[];
  /** The verified chain from `to` (meeting in the middle): reversePath[0] is `to`. */
  readonly reversePath: readonly Person[];
  readonly reverseEdges: readonly VerifiedEdge[];
  /** The frontier's candidates (deduplicated, in the fallback order), those still untried. */
  readonly candidates: readonly Candidate[];
  /** Per frontier (celebrity id), the candidates that could not be verified from it. */
  readonly failedFrom: Readonly<Record<string, readonly string[]>>;
  /** Frontiers whose every candidate failed: never proposed again. */
  readonly deadEnds: readonly string[];
  /** Meeting in the middle: sides whose root has nothing left to try (the other side carries on). Absent in runs started before it existed. */
  readonly exhaustedSides?: readonly ('from' | 'to')[];
  /**
   * Meeting in the middle: per side, who its discoveries saw (celebrity id) and beside which node of
   * its chain (celebrity id), first sighting kept (`recordSightings`, visual-degrees.chains.ts). Absent in runs started before it existed.
   */
  readonly sightings?: Readonly<Record<'from' | 'to', Readonly<Record<string, string>>>>;
  /**
   * The direct attempts' searches so far (S1's A ↔ B, S5's bridges): between whom (their names) and the
   * queries. Already run, so a later discovery beside either of them reads them again at no search
   * (`discoveryQueriesBeside`, visual-degrees.commands.ts). Absent in runs started before it existed.
   */
  readonly directSearches?: readonly DirectSearch[];
  /**
   * The discoveries' searches so far: the frontier's name and the queries sent (S2). A frontier
   * discovered again with nothing left to try searches a template it has not searched yet
   * (`deeperDiscovery`, visual-degrees.commands.ts). Absent in runs started before it existed.
   */
  readonly discoverySearches?: readonly DiscoverySearch[];
  /**
   * Who the recogniser saw in each partial-evidence photo streamed (the `evidence` event carries the
   * photo's URL, not who it shows): a takedown of anyone pictured, a third person too, finds the run and
   * redacts the photo (`redactPerson`). Absent in runs started before it existed.
   */
  readonly partialPhotos?: readonly PartialPhoto[];
  /**
   * People taken down while the run went on (celebrity ids): a reply the service made before it knew
   * (its takedown list refreshes within 30 s) may still picture them; every decision redacts such
   * photos (`decideGuarded`). Absent in runs that saw no takedown.
   */
  readonly takenDown?: readonly string[];
  /** The candidate S4 is verifying, with the queries it runs. */
  readonly verifying: { readonly candidate: IdentifiedPerson; readonly queries: readonly string[] } | null;
  readonly events: readonly StreamEvent[];
  readonly failure: { readonly reason: FailureReason; readonly detail: string; readonly unknownNames?: readonly string[]; readonly knownNames?: readonly string[] } | null;
  /** The local demo world the service searches, from its first reply that said so (absent on the real web, and before). */
  readonly world?: VisualWorldInfo;
}

/** S0: the request normalised, its limits and budgets fixed (the options within the caps, else the spec's defaults). */
export function initialVisualDegreesData(input: JsonObject, run: Pick<RunSnapshot, 'userId'>): VisualDegreesData {
  const start = visualDegreesRequest.parse(input);
  const options = start.options ?? {};
  const from = { name: start.from };
  return {
    sessionId: start.sessionId ?? run.userId.slice(0, 128),
    from,
    to: { name: start.to },
    hopLimit: options.maxHops ?? VISUAL_DEGREES_PARAMETERS.maxHops,
    budgets: {
      maxSearchCalls: options.maxSearchCalls ?? DEFAULT_VISUAL_BUDGETS.maxSearchCalls,
      maxRecognitionCalls: options.maxRecognitionCalls ?? DEFAULT_VISUAL_BUDGETS.maxRecognitionCalls,
      maxLlmCalls: options.maxLlmCalls ?? DEFAULT_VISUAL_BUDGETS.maxLlmCalls,
      maxRuntimeMs: options.maxRuntimeMs ?? DEFAULT_VISUAL_BUDGETS.maxRuntimeMs,
    },
    model: options.model ?? null,
    used: { searchCalls: 0, recognitionCalls: 0, llmCalls: 0, imagesSkipped: 0, costUsd: 0 },
    startedAt: null,
    stepNo: 0,
    step: null,
    command: null,
    strategy: options.strategy ?? 'meet_in_the_middle',
    side: 'from',
    path: [from],
    edges: [],
    reversePath: [{ name: start.to }],
    reverseEdges: [],
    candidates: [],
    failedFrom: {},
    deadEnds: [],
    exhaustedSides: [],
    sightings: { from: {}, to: {} },
    verifying: null,
    events: [],
    failure: null,
  };
}

/* A run's budgets (spec 03): what is left, what a reply's usage costs, and why a spent one ends the run. */

type D = VisualDegreesData;

export function remaining(data: D): { searchCalls: number; recognitionCalls: number; llmCalls: number } {
  return {
    searchCalls: Math.max(0, data.budgets.maxSearchCalls - data.used.searchCalls),
    recognitionCalls: Math.max(0, data.budgets.maxRecognitionCalls - data.used.recognitionCalls),
    llmCalls: Math.max(0, data.budgets.maxLlmCalls - data.used.llmCalls),
  };
}

export function charge(data: D, usage: Partial<Usage>): D {
  const used = data.used;
  return {
    ...data,
    used: {
      searchCalls: used.searchCalls + (usage.searchCalls ?? 0),
      recognitionCalls: used.recognitionCalls + (usage.recognitionCalls ?? 0),
      llmCalls: used.llmCalls + (usage.llmCalls ?? 0),
      imagesSkipped: used.imagesSkipped + (usage.imagesSkipped ?? 0),
      costUsd: Math.round((used.costUsd + (usage.costUsd ?? 0)) * 1e6) / 1e6,
    },
  };
}

export function budgetReason(kind: 'search' | 'recognition' | undefined): FailureReason {
  return kind === 'recognition' ? 'recognition_budget_exhausted' : 'search_budget_exhausted';
}

/** Checks the search budgets before a search step; undefined when there is some left. */
export function searchBudgetSpent(data: D): FailureReason | undefined {
  const left = remaining(data);
  if (left.searchCalls <= 0) return 'search_budget_exhausted';
  if (left.recognitionCalls <= 0) return 'recognition_budget_exhausted';
  return undefined;
}

/** Edges verified so far, on both chains. */
export function hopsVerified(data: VisualDegreesData): number {
  return data.edges.length + data.reverseEdges.length;
}

export const identified = (person: Person): IdentifiedPerson | undefined => (person.celebrityId === undefined ? undefined : { name: person.name, celebrityId: person.celebrityId });

/** A person as a reply identified them (the reply's id wins; the name we asked with stays). */
export const learn = (known: Person, seen: Person): Person => (known.celebrityId === undefined && seen.celebrityId !== undefined ? { name: known.name, celebrityId: seen.celebrityId } : known);
