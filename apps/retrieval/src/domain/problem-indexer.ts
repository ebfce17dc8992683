import type { Embedder } from './embedder.js';
import type { MultiIndexHashIndex } from './phash-index.js';
import type { CatalogChange, IndexedProblem, ProblemCatalog, ProblemDocument } from './problem-catalog.js';
import type { VectorIndex } from './vector-index.js';

export interface IndexingPorts {
  readonly catalog: Pick<ProblemCatalog, 'upsert' | 'remove' | 'phashEntries'>;
  readonly phashIndex: Pick<MultiIndexHashIndex, 'insert' | 'remove' | 'bulkLoadAsync'>;
  readonly vectors: VectorIndex;
  readonly embedder: Embedder;
  /** The pHash version the in-memory index holds; hashes of other versions are stored but not indexed. */
  readonly phashVersion: string;
}

export interface IndexingResult {
  readonly problem: IndexedProblem;
  readonly change: CatalogChange;
  readonly vectorIndexed: boolean;
  readonly phashIndexed: boolean;
}

/**
 * Indexes one asset version in every index (catalogue with its exact keys and tsvector, pHash, vector).
 * Idempotent per asset version: every step is an upsert keyed by it, and every step runs even when the
 * catalogue row is unchanged, so a redelivered command also repairs a previous attempt that died
 * between steps. The catalogue goes first because the in-memory pHash index is rebuilt from it. A
 * withdrawn asset version stays withdrawn: its catalogue row is updated, and it is kept out of the rest.
 */
export async function indexProblem(document: ProblemDocument, ports: IndexingPorts): Promise<IndexingResult> {
  const { problem, change } = await ports.catalog.upsert(document);
  if (problem.withdrawnReason !== undefined) {
    // Withdrawn (its stored answer was solved from another reading): re-sending it never serves it again.
    ports.phashIndex.remove(problem.docId);
    await ports.vectors.delete(problem.assetVersionId);
    return { problem, change, vectorIndexed: false, phashIndexed: false };
  }
  const phashIndexed = problem.phash !== undefined && problem.phashVersion === ports.phashVersion;
  if (phashIndexed && problem.phash !== undefined) ports.phashIndex.insert(problem.docId, BigInt(`0x${problem.phash}`));
  else ports.phashIndex.remove(problem.docId);

  let vectorIndexed = false;
  if (problem.normalisedText === '') {
    // An image without text (a figure) has nothing to embed; drop any vector an older version left.
    await ports.vectors.delete(problem.assetVersionId);
  } else {
    const [vector] = await ports.embedder.embed([problem.normalisedText]);
    if (vector === undefined) throw new Error('embedder returned no vector');
    await ports.vectors.upsert(problem.assetVersionId, vector, {
      asset_version_id: problem.assetVersionId,
      ...(problem.problemId === undefined ? {} : { problem_id: problem.problemId }),
      ...(problem.subject === undefined ? {} : { subject: problem.subject }),
    });
    vectorIndexed = true;
  }
  return { problem, change, vectorIndexed, phashIndexed };
}

/** Removes an asset version from every index; removing one that is not indexed is a no-op. */
export async function unindexProblem(assetVersionId: string, ports: IndexingPorts): Promise<boolean> {
  const removed = await ports.catalog.remove(assetVersionId);
  if (removed !== undefined) ports.phashIndex.remove(removed.docId);
  await ports.vectors.delete(assetVersionId);
  return removed !== undefined;
}

/** Start-up: the in-memory pHash index is a cache of the catalogue and is rebuilt from it. */
export async function rebuildPhashIndex(ports: Pick<IndexingPorts, 'catalog' | 'phashIndex' | 'phashVersion'>): Promise<void> {
  await ports.phashIndex.bulkLoadAsync(ports.catalog.phashEntries(ports.phashVersion));
}
