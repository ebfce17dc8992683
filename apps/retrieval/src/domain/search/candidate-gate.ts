import type { KeywordHit } from '../problem-catalog.js';
import { numbersConsistent, numbersIn } from '../text-similarity.js';
import { describeRelabel, mathsRelation } from './maths-mapping.js';
import type { VectorHit } from '../vector-index.js';
import type { HybridSearchPorts, HybridSearchSettings, RetrievalQuery } from './search-model.js';

/**
 * The gate in front of the vector and keyword tiers: the text candidates that are certainly another
 * problem, with why. An embedding or a keyword ranking cannot tell "3x + 7 = 22" from "5x + 7 = 22".
 * When both sides have a maths signature, the maths must be the same (a paraphrase keeps it); and the
 * numbers of the whole texts must be consistent (the same numbers, up to what OCR drops), which also
 * covers prose numbers outside the maths ("… then find 2x"). A candidate the catalogue no longer
 * serves (withdrawn, while a replica's memory still held its vector) is refused too.
 */
export async function refusedCandidates(
  query: RetrievalQuery,
  vectorHits: readonly VectorHit[],
  keywordHits: readonly KeywordHit[],
  ports: Pick<HybridSearchPorts, 'catalog'>,
  settings: HybridSearchSettings,
): Promise<Map<string, string>> {
  const ids = [...new Set([...vectorHits.map((h) => h.payload.asset_version_id), ...keywordHits.map((h) => h.assetVersionId)])];
  const refused = new Map<string, string>();
  if (ids.length === 0) return refused;
  const queryNumbers = numbersIn(query.normalisedText);
  const candidates = await ports.catalog.getByAssetVersionIds(ids);
  const served = new Set(candidates.map((c) => c.assetVersionId));
  for (const id of ids) if (!served.has(id)) refused.set(id, 'it is no longer indexed (withdrawn)');
  for (const candidate of candidates) {
    const relation = query.maths === undefined || candidate.maths === undefined ? undefined : mathsRelation(query.maths, candidate.maths);
    if (relation?.kind === 'other') refused.set(candidate.assetVersionId, relation.why);
    // A renaming is served only by the maths tier, which re-renders it in the asker's names.
    else if (relation?.kind === 'renamed') refused.set(candidate.assetVersionId, `its maths is the query's in other names (${describeRelabel(relation.relabel)})`);
    else if (!numbersConsistent(queryNumbers, numbersIn(candidate.normalisedText), settings.textAgreement.maxDroppedNumbers)) {
      refused.set(candidate.assetVersionId, "its numbers differ from the query's");
    }
  }
  return refused;
}
