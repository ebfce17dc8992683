import type { EvidenceImage } from '../domain/edge-verification.js';
import type { SeenCelebrity } from '../domain/observation.js';

/** A run's memory is keyed `vd.{sessionId}.{runId}....` (the spec's `vd:{sessionId}:{runId}:...`). */
export interface RunKey {
  readonly sessionId: string;
  readonly runId: string;
}

export type SeenKind = 'queries' | 'images';

export interface StoredEdge {
  readonly edgeConf: number;
  readonly evidence: readonly EvidenceImage[];
}

/**
 * Ephemeral run memory (spec: "KV memory with TTL"): what the service reads again in a later step of
 * the same run — the dedup sets, recognition results per photo, the edges this run verified (S4 reads
 * discovery's) and step replies. Everything expires with the bucket's TTL (at least the longest
 * `maxRuntimeMs`), and a reader treats a missing key as unknown (an empty set, no reply): the worst an
 * expired key costs is repeated work, never a broken run. The run's state (the request, its limits and
 * budgets, candidates, chains and every decision) is the saga's, in PostgreSQL (ADR 0029): nothing here
 * is written that no step reads.
 */
export interface RunMemory {
  /** `queries`: query strings run; `images`: image URL -> pHash of the images fetched. */
  seen(run: RunKey, kind: SeenKind): Promise<ReadonlyMap<string, string>>;
  /** Merges entries into the set (compare-and-set, safe under concurrent writers). */
  addSeen(run: RunKey, kind: SeenKind, entries: ReadonlyMap<string, string>): Promise<void>;
  /** What the recogniser saw in the photo with this pHash, earlier in the run. */
  getRecognition(run: RunKey, phash: string): Promise<readonly SeenCelebrity[] | undefined>;
  putRecognition(run: RunKey, phash: string, celebrities: readonly SeenCelebrity[]): Promise<void>;
  getEdge(run: RunKey, fromId: string, toId: string): Promise<StoredEdge | undefined>;
  putEdge(run: RunKey, fromId: string, toId: string, edge: StoredEdge): Promise<void>;
  /** The reply a step produced, kept so a redelivered command gets it again without new provider calls. */
  getReply<T>(run: RunKey, commandId: string): Promise<T | undefined>;
  putReply(run: RunKey, commandId: string, reply: unknown): Promise<void>;
}
