import type { IndexedProblem } from '../problem-catalog.js';
import { textAgreement } from '../text-similarity.js';
import { DEFAULT_SEARCH_SETTINGS, fmt, type HybridSearchPorts, type HybridSearchSettings, type Note, ref, type RetrievalQuery } from './search-model.js';
import { describeRelabel, mathsRelation } from './maths-mapping.js';

/**
 * The image stage on its own: the nearest indexed pHash within the bound that passes the quality gate,
 * the version check, the same maths when both sides have it and, for text-dominant images, the OCR
 * text confirmation. Exported for the
 * near-duplicate benchmark, which measures exactly this stage.
 */
export async function findPhashDuplicate(
  query: RetrievalQuery,
  ports: Pick<HybridSearchPorts, 'catalog' | 'phashIndex'>,
  settings: HybridSearchSettings = DEFAULT_SEARCH_SETTINGS,
  note: Note = () => undefined,
): Promise<{ problem: IndexedProblem; distance: number } | undefined> {
  const skip = (reason: string): undefined => {
    note({ stage: 'phash', candidate: null, score: null, decision: 'skipped', reason });
    return undefined;
  };
  if (query.phash === undefined) return skip('query has no pHash');
  if (settings.phashVersion !== undefined && query.phashVersion !== settings.phashVersion) {
    return skip(`query pHash version ${query.phashVersion ?? 'unknown'} is not the indexed ${settings.phashVersion}`);
  }
  if ((query.quality ?? 0) < settings.minQuality) return skip(`query image quality ${query.quality ?? 0} < ${settings.minQuality}`);

  const matches = ports.phashIndex.search(BigInt(`0x${query.phash}`), settings.maxPhashDistance);
  if (matches.length === 0) {
    note({ stage: 'phash', candidate: null, score: null, decision: 'rejected', reason: `no pHash within distance ${settings.maxPhashDistance}` });
    return undefined;
  }
  const distanceOf = new Map(matches.map((m) => [m.id, m.distance]));
  const problems = await ports.catalog.getByDocIds(matches.slice(0, 50).map((m) => m.id));
  problems.sort((a, b) => (distanceOf.get(a.docId) ?? 64) - (distanceOf.get(b.docId) ?? 64) || b.docId - a.docId);
  let best: { problem: IndexedProblem; distance: number; similarity: number } | undefined;
  for (const problem of problems) {
    const distance = distanceOf.get(problem.docId) ?? 64;
    const reject = (reason: string): void =>
      note({ stage: 'phash', candidate: ref(problem), score: null, decision: 'rejected', reason: `distance ${distance}: ${reason}` });
    if (problem.phashVersion !== query.phashVersion) {
      reject(`indexed under pHash version ${problem.phashVersion ?? 'unknown'}`);
      continue;
    }
    if ((problem.quality ?? 0) < settings.minQuality) {
      reject(`candidate image quality ${problem.quality ?? 0} < ${settings.minQuality}`);
      continue;
    }
    // The same layout with other numbers (or other names) hashes alike; when both sides' maths is known,
    // it must be the same, in the same names.
    const relation = query.maths === undefined || problem.maths === undefined ? undefined : mathsRelation(query.maths, problem.maths);
    if (relation !== undefined && relation.kind !== 'same') {
      reject(relation.kind === 'other' ? relation.why : `the query's maths in other names (${describeRelabel(relation.relabel)})`);
      continue;
    }
    let similarity = 1;
    if (query.textDominant === true || problem.textDominant === true) {
      const agreement = textAgreement(query.normalisedText, problem.normalisedText, settings.textAgreement);
      if (!agreement.agree) {
        reject(
          `text-dominant image and OCR texts disagree (similarity ${fmt(agreement.similarity)}${agreement.numbersConsistent ? '' : ', numbers differ'})`,
        );
        continue;
      }
      similarity = agreement.similarity;
    }
    if (best === undefined || distance < best.distance || (distance === best.distance && similarity > best.similarity)) {
      best = { problem, distance, similarity };
    }
  }
  return best === undefined ? undefined : { problem: best.problem, distance: best.distance };
}
