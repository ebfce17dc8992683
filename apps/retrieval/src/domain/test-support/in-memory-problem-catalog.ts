import type { PhashIndexEntry } from '../phash-index.js';
import { type CatalogChange, type IndexedProblem, type KeywordHit, type ProblemCatalog, type ProblemDocument, sameDocument } from '../problem-catalog.js';

/**
 * In-memory `ProblemCatalog` for unit tests of the search and indexing logic. Keyword ranking is a
 * plain count of shared words, enough to order candidates; the real full-text ranking is PostgreSQL's
 * and is covered by the catalogue's integration spec.
 */
export class InMemoryProblemCatalog implements ProblemCatalog {
  private readonly byId = new Map<string, IndexedProblem>();
  private nextDocId = 1;

  upsert(document: ProblemDocument): Promise<{ problem: IndexedProblem; change: CatalogChange }> {
    const existing = this.byId.get(document.assetVersionId);
    if (existing !== undefined && sameDocument(existing, document)) return Promise.resolve({ problem: existing, change: 'unchanged' });
    const problem: IndexedProblem = { ...document, docId: existing?.docId ?? this.nextDocId++ };
    this.byId.set(document.assetVersionId, problem);
    return Promise.resolve({ problem, change: existing === undefined ? 'created' : 'updated' });
  }

  remove(assetVersionId: string): Promise<IndexedProblem | undefined> {
    const existing = this.byId.get(assetVersionId);
    this.byId.delete(assetVersionId);
    return Promise.resolve(existing);
  }

  findByImageSha256(sha256: string): Promise<IndexedProblem[]> {
    return Promise.resolve(this.newestFirst((p) => p.imageSha256 === sha256));
  }

  findByTextSha256(sha256: string): Promise<IndexedProblem[]> {
    return Promise.resolve(this.newestFirst((p) => p.textSha256 === sha256));
  }

  findByMathsHashes(hashes: readonly string[]): Promise<IndexedProblem[]> {
    return Promise.resolve(this.newestFirst((p) => p.maths !== undefined && hashes.includes(p.maths.hash)));
  }

  getByDocIds(docIds: readonly number[]): Promise<IndexedProblem[]> {
    const wanted = new Set(docIds);
    return Promise.resolve(this.newestFirst((p) => wanted.has(p.docId)));
  }

  getByAssetVersionIds(assetVersionIds: readonly string[]): Promise<IndexedProblem[]> {
    const wanted = new Set(assetVersionIds);
    return Promise.resolve(this.newestFirst((p) => wanted.has(p.assetVersionId)));
  }

  keywordSearch(normalisedText: string, limit: number, candidates?: readonly string[]): Promise<KeywordHit[]> {
    const words = new Set(normalisedText.match(/[a-z]{2,}|\d+/g) ?? []);
    const allowed = candidates === undefined ? undefined : new Set(candidates);
    const hits: KeywordHit[] = [];
    for (const problem of this.byId.values()) {
      const own = new Set(problem.normalisedText.match(/[a-z]{2,}|\d+/g) ?? []);
      let shared = 0;
      for (const w of words) if (own.has(w)) shared += 1;
      if (allowed !== undefined && !allowed.has(problem.assetVersionId) && shared < words.size) continue;
      if (shared > 0) hits.push({ docId: problem.docId, assetVersionId: problem.assetVersionId, rank: shared / Math.max(1, own.size) });
    }
    return Promise.resolve(hits.sort((a, b) => b.rank - a.rank || b.docId - a.docId).slice(0, limit));
  }

  async *phashEntries(phashVersion: string): AsyncIterable<readonly PhashIndexEntry[]> {
    const entries: PhashIndexEntry[] = [];
    for (const p of this.byId.values()) {
      if (p.phash !== undefined && p.phashVersion === phashVersion) entries.push({ id: p.docId, hash: BigInt(`0x${p.phash}`) });
    }
    await Promise.resolve();
    yield entries;
  }

  private newestFirst(predicate: (p: IndexedProblem) => boolean): IndexedProblem[] {
    return [...this.byId.values()].filter(predicate).sort((a, b) => b.docId - a.docId);
  }
}
