import type { IndexedChunk } from './domain/retrieval/rank-chunks.js';
import type { FetchedDocument } from './domain/sources/safe-fetch.js';

/** Injection tokens of the artifacts service's ports. */
export const ARTIFACTS_LLM = Symbol('openpaw.artifacts.llm');
export const ARTIFACTS_EMBEDDER = Symbol('openpaw.artifacts.embedder');
export const ARTIFACTS_BLOBS = Symbol('openpaw.artifacts.blobs');
export const ARTIFACTS_SETTINGS = Symbol('openpaw.artifacts.settings');
export const SOURCE_STORE = Symbol('openpaw.artifacts.sourceStore');
/** The `artifacts` schema's kept replies (`KeptReplyStore` of `@openpaw/messaging`, table `command_replies`). */
export const REPLY_STORE = Symbol('openpaw.artifacts.replyStore');
export const URL_FETCHER = Symbol('openpaw.artifacts.urlFetcher');

export interface SourceRecord {
  readonly sourceId: string;
  readonly userId: string;
  readonly notebookId: string;
  readonly kind: 'text' | 'url' | 'file';
  readonly title: string;
  readonly uri: string | null;
  readonly contentSha256: string;
  readonly text: string;
}

export interface ChunkRecord {
  readonly chunkId: string;
  readonly ordinal: number;
  readonly text: string;
  readonly embedding: Float32Array;
  readonly embeddingVersion: string;
}

export type UpsertOutcome =
  /** Stored: the source's chunks are now exactly these. */
  | 'applied'
  /** A newer revision of the source is already stored; nothing changed. */
  | 'stale'
  /** The id belongs to another user's or notebook's source. */
  | 'foreign';

/** The `artifacts` schema's notebook sources and their chunks (tables `sources`, `chunks`). */
export interface SourceStore {
  /** Replaces the source and its chunks atomically, unless a newer revision (by `revisionAt`) is stored. */
  upsert(source: SourceRecord, chunks: readonly ChunkRecord[], revisionAt: Date): Promise<UpsertOutcome>;
  /**
   * The notebook's chunks (of `sourceIds` only, when given) with their embeddings, built by
   * `embeddingVersion`; with `asOf`, only the chunks indexed at or before it (a snapshot as of then).
   * `asOf` is an ISO 8601 time as PostgreSQL read it (to the microsecond), compared as it is: a Date
   * would keep milliseconds only.
   */
  notebookChunks(userId: string, notebookId: string, sourceIds: readonly string[] | undefined, embeddingVersion: string, asOf?: string): Promise<IndexedChunk[]>;
  /** Which of `sourceIds` exist in the user's notebook (with `asOf`: existed at or before it). */
  existingSources(userId: string, notebookId: string, sourceIds: readonly string[], asOf?: string): Promise<string[]>;
  /** Every source id of the notebook, sorted. */
  notebookSources(userId: string, notebookId: string): Promise<string[]>;
}

/** GETs a URL source (`safeFetch` in production). */
export type UrlFetcher = (url: string) => Promise<FetchedDocument>;
