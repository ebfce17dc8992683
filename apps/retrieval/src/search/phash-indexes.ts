import type { PhashLookup } from '../domain/hybrid-search.js';
import { MultiIndexHashIndex, type PhashMatch } from '../domain/phash-index.js';
import { type IndexingPorts, rebuildPhashIndex } from '../domain/problem-indexer.js';

const NOTHING: PhashLookup = { search: (): PhashMatch[] => [] };

/**
 * One in-memory pHash index per pHash algorithm version. Hashes of two versions are not comparable, and
 * the version is the ingestion service's business (it travels in each signature), so retrieval keeps
 * whatever versions it is given apart instead of being configured with one: a query is looked up in
 * its own version's index, and a new version starts a new index beside the old ones.
 */
export class PhashIndexes {
  private readonly byVersion = new Map<string, MultiIndexHashIndex>();

  /** The start-up rebuild: each version's index from the catalogue (which keeps every hash). */
  async rebuild(catalog: IndexingPorts['catalog'], versions: readonly string[]): Promise<void> {
    this.byVersion.clear();
    for (const version of versions) {
      const phashIndex = new MultiIndexHashIndex();
      await rebuildPhashIndex({ catalog, phashIndex, phashVersion: version });
      this.byVersion.set(version, phashIndex);
    }
  }

  /** Hashes held, per version (for logs and tests). */
  sizes(): Record<string, number> {
    return Object.fromEntries([...this.byVersion].map(([version, index]) => [version, index.size]));
  }

  /** The index a query of this version is searched in; nothing matches a query without a version. */
  lookup(version: string | undefined): PhashLookup {
    return (version === undefined ? undefined : this.byVersion.get(version)) ?? NOTHING;
  }

  /**
   * What `indexProblem` updates for a document of this version: its hash goes into that version's
   * index and out of every other (a re-ingested problem may change version); removing clears it from all.
   */
  forIndexing(version: string | undefined): IndexingPorts['phashIndex'] {
    return {
      insert: (id, hash) => {
        if (version === undefined) throw new Error('a pHash without its algorithm version cannot be indexed');
        for (const [other, index] of this.byVersion) if (other !== version) index.remove(id);
        this.indexFor(version).insert(id, hash);
      },
      remove: (id) => {
        let removed = false;
        for (const index of this.byVersion.values()) removed = index.remove(id) || removed;
        return removed;
      },
      bulkLoadAsync: (batches) => {
        if (version === undefined) throw new Error('a pHash without its algorithm version cannot be indexed');
        return this.indexFor(version).bulkLoadAsync(batches);
      },
    };
  }

  private indexFor(version: string): MultiIndexHashIndex {
    let index = this.byVersion.get(version);
    if (index === undefined) {
      index = new MultiIndexHashIndex();
      this.byVersion.set(version, index);
    }
    return index;
  }
}
