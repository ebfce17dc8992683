import type { IndexedProblem } from '../problem-catalog.js';
import { type HybridSearchPorts, type HybridSearchSettings, type Note, ref, type RetrievalQuery } from './search-model.js';

/** Spec 01's normalised-text tier: the same normalised text, unless either side is an image that is more than its text. */
export async function exactTextStage(
  query: RetrievalQuery,
  ports: HybridSearchPorts,
  settings: HybridSearchSettings,
  note: Note,
): Promise<IndexedProblem | undefined> {
  const skip = (reason: string): undefined => {
    note({ stage: 'exact_text', candidate: null, score: null, decision: 'skipped', reason });
    return undefined;
  };
  if (query.normalisedText.length < settings.minExactTextLength) {
    return skip(`normalised text shorter than ${settings.minExactTextLength} characters`);
  }
  if (query.imageSha256 !== undefined && query.textDominant !== true) return skip('query image carries more than its text');
  const candidates = await ports.catalog.findByTextSha256(query.textSha256);
  if (candidates.length === 0) {
    note({ stage: 'exact_text', candidate: null, score: null, decision: 'rejected', reason: 'no identical normalised text indexed' });
    return undefined;
  }
  for (const candidate of candidates) {
    if (candidate.imageSha256 !== undefined && candidate.textDominant !== true) {
      note({ stage: 'exact_text', candidate: ref(candidate), score: null, decision: 'rejected', reason: 'candidate image carries more than its text' });
      continue;
    }
    return candidate;
  }
  return undefined;
}
