import { type EdgeVerified, type MessageData, VISUAL_DEGREES_MAX_HOPS, type VisualWorldInfo, type visualPerson } from '@openpaw/contracts';
import type { StepProgress } from '@openpaw/saga';
import type { z } from 'zod';

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

/** Why S7. */
export type FailureReason =
  | 'hop_limit_reached'
  | 'no_candidates'
  | 'search_budget_exhausted'
  | 'recognition_budget_exhausted'
  | 'runtime_budget_exhausted'
  /** The local demo world knows nobody by one of the names (the no_path event lists those it knows). */
  | 'unknown_person'
  /**
   * A person the run started from (A, or B meeting in the middle) was in none of the photos their own
   * discovery read, at the threshold: the recogniser (celebrity recognition) does not know them as a
   * public figure, and visual degrees connects public figures only; nothing more is searched.
   */
  | 'not_a_public_figure'
  | 'step_failed'
  /** A fault of the workflow itself (its decision threw): the `error` event carries it. */
  | 'unexpected_error';

/** The spec's streaming events, kept in run data in order (`seq` is the SSE id, so a client resumes). */
export type StreamEvent =
  | { readonly seq: number; readonly type: 'status'; readonly at: string; readonly data: { readonly message: string } }
  | { readonly seq: number; readonly type: 'evidence'; readonly at: string; readonly data: EvidenceCard }
  | { readonly seq: number; readonly type: 'path_update'; readonly at: string; readonly data: { readonly path: readonly string[]; readonly hops: number; readonly reversePath?: readonly string[] } }
  | { readonly seq: number; readonly type: 'final'; readonly at: string; readonly data: FinalPayload }
  | { readonly seq: number; readonly type: 'no_path'; readonly at: string; readonly data: NoPathPayload }
  | { readonly seq: number; readonly type: 'error'; readonly at: string; readonly data: { readonly code: string; readonly reason: string; readonly message: string } }
  | { readonly seq: number; readonly type: 'cancelled'; readonly at: string; readonly data: { readonly message: string; readonly reason: string | null; readonly hopDepth: number; readonly used: Usage } };

export type StreamEventType = StreamEvent['type'];

/** A verified edge as the client sees it: its best image, the page it came from, both confidences. */
export interface EvidenceCard {
  readonly from: string;
  readonly to: string;
  readonly edgeConf: number;
  readonly imageUrl: string;
  readonly sourcePageUrl: string | null;
  readonly confidenceFrom: number;
  readonly confidenceTo: number;
  readonly images: number;
  /** Its stored thumbnail's id (the photo's pHash), served by the gateway to the run's owner; null when none was stored. */
  readonly thumbnail: string | null;
}

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

/** A direct attempt's search (S1, S5): the two persons' names and the queries it ran. */
export interface DirectSearch {
  readonly between: readonly [string, string];
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
  /** The chain being expanded (see chains.ts). */
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
   * its chain (celebrity id), first sighting kept (meeting.ts). Absent in runs started before it existed.
   */
  readonly sightings?: Readonly<Record<'from' | 'to', Readonly<Record<string, string>>>>;
  /**
   * The direct attempts' searches so far (S1's A ↔ B, S5's bridges): between whom (their names) and the
   * queries. Already run, so a later discovery beside either of them reads them again at no search
   * (commands.ts). Absent in runs started before it existed.
   */
  readonly directSearches?: readonly DirectSearch[];
  /** The candidate S4 is verifying, with the queries it runs. */
  readonly verifying: { readonly candidate: IdentifiedPerson; readonly queries: readonly string[] } | null;
  readonly events: readonly StreamEvent[];
  readonly failure: { readonly reason: FailureReason; readonly detail: string; readonly unknownNames?: readonly string[]; readonly knownNames?: readonly string[] } | null;
  /** The local demo world the service searches, from its first reply that said so (absent on the real web, and before). */
  readonly world?: VisualWorldInfo;
}
