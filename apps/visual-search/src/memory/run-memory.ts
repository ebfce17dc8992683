import type { EvidenceImage } from '../domain/edge-verification.js';
import type { SeenCelebrity } from '../domain/observation.js';

/** A run's memory is keyed `vd.{sessionId}.{runId}....` (the spec's `vd:{sessionId}:{runId}:...`). */
export interface RunKey {
  readonly sessionId: string;
  readonly runId: string;
}

export interface RunMeta {
  readonly personA: string;
  readonly personB: string;
  readonly startedAt: string;
  readonly hopLimit: number;
  readonly threshold: number;
  readonly budgets: Readonly<Record<string, number>>;
}

export type SeenKind = 'queries' | 'images';

export interface StoredCandidate {
  readonly name: string;
  readonly count: number;
  readonly bestConf: number;
  readonly evidenceRefs: readonly string[];
}

export interface StoredEdge {
  readonly edgeConf: number;
  readonly evidence: readonly EvidenceImage[];
}

/**
 * Ephemeral run memory (spec: "KV memory with TTL"): dedup sets, candidates per frontier, verified
 * edges, the current path, recognition results per photo and step replies. Everything expires with the
 * bucket's TTL, and a reader treats a missing key as unknown (an empty set, no candidates, no reply):
 * the worst an expired key costs is repeated work, never a broken run. The saga's own data stays the
 * source of truth.
 */
export interface RunMemory {
  getMeta(run: RunKey): Promise<RunMeta | undefined>;
  putMeta(run: RunKey, meta: RunMeta): Promise<void>;
  /** `queries`: query strings run; `images`: image URL -> pHash of the images fetched. */
  seen(run: RunKey, kind: SeenKind): Promise<ReadonlyMap<string, string>>;
  /** Merges entries into the set (compare-and-set, safe under concurrent writers). */
  addSeen(run: RunKey, kind: SeenKind, entries: ReadonlyMap<string, string>): Promise<void>;
  /** What the recogniser saw in the photo with this pHash, earlier in the run. */
  getRecognition(run: RunKey, phash: string): Promise<readonly SeenCelebrity[] | undefined>;
  putRecognition(run: RunKey, phash: string, celebrities: readonly SeenCelebrity[]): Promise<void>;
  getCandidates(run: RunKey, frontierId: string): Promise<Readonly<Record<string, StoredCandidate>> | undefined>;
  putCandidates(run: RunKey, frontierId: string, candidates: Readonly<Record<string, StoredCandidate>>): Promise<void>;
  getEdge(run: RunKey, fromId: string, toId: string): Promise<StoredEdge | undefined>;
  putEdge(run: RunKey, fromId: string, toId: string, edge: StoredEdge): Promise<void>;
  getPath(run: RunKey): Promise<readonly string[] | undefined>;
  putPath(run: RunKey, path: readonly string[]): Promise<void>;
  /** The reply a step produced, kept so a redelivered command gets it again without new provider calls. */
  getReply<T>(run: RunKey, commandId: string): Promise<T | undefined>;
  putReply(run: RunKey, commandId: string, reply: unknown): Promise<void>;
}
