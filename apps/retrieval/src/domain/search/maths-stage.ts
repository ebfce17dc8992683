import type { IndexedProblem } from '../problem-catalog.js';
import { describeRelabel, mathsRelation, type Relabel } from './maths-mapping.js';
import { numberMultisetsAgree, numbersIn } from '../text-similarity.js';
import { CONFIDENCE, fmt, type HybridSearchPorts, type HybridSearchSettings, type Note, ref, type RetrievalQuery } from './search-model.js';

/** "problem", "exercise", "question" and what is left of each when a photo cuts off its first letters ("roblem"). */
const LABEL_WORD = `(?:${['problem', 'exercise', 'question']
  .flatMap((word) => Array.from({ length: word.length - 2 }, (_x, cut) => word.slice(cut)))
  .join('|')})`;

/**
 * A leading item label ("problem 12.", "12.", "exercise 3:", "q4)") names the item on a page, not the
 * problem; so does its remainder on a copy cropped at the left ("'roblem 12.", with OCR's stray quote).
 */
const ITEM_LABEL = new RegExp(`^['"‘’“”]?(?:(?:${LABEL_WORD}|ex|q)\\s*)?\\d+\\s*[.):]\\s+(?:${LABEL_WORD}\\s*\\d+\\s*[.):]\\s*)?`);
const LABEL_ALONE = new RegExp(`^['"‘’“”]?${LABEL_WORD}\\s*\\d+\\s*[.):]\\s*`);

export function withoutItemLabel(normalisedText: string): string {
  return normalisedText.replace(ITEM_LABEL, '').replace(LABEL_ALONE, '');
}

/**
 * The numbers written in digits in the text around its maths: the text's numbers less those of the
 * maths (which the hash already holds, exactly). A worded problem says its maths' numbers in words
 * ("forty-three"), so comparing every digit of two texts would tell a worded twin from its symbolic
 * one; what is left ("… then find 2x") must still agree.
 */
function proseNumbers(normalisedText: string, mathsNumbers: readonly string[]): string[] {
  const inMaths = new Map<string, number>();
  for (const n of mathsNumbers) inMaths.set(n, (inMaths.get(n) ?? 0) + 1);
  return numbersIn(withoutItemLabel(normalisedText)).filter((n) => {
    const left = inMaths.get(n) ?? 0;
    if (left === 0) return true;
    inMaths.set(n, left - 1);
    return false;
  });
}

export interface MathsMatch {
  readonly problem: IndexedProblem;
  readonly confidence: number;
  /** Why it is the same problem, for the trace. */
  readonly detail: string;
  /**
   * Present when the problem is the query's under a renaming of its unknowns (stored name → asker's
   * name): its stored solution is written in other names, so it is served only re-rendered in the asker's.
   */
  readonly relabel?: readonly Relabel[];
}

/**
 * The maths-signature tier (ADR 0007): an indexed problem whose canonical maths and question intent
 * hash the same as the query's (from maths-sig/v3 up to a renaming of the unknowns that maps the
 * asked-for unknown onto the asked-for one; never through a hash under an older version).
 * A problem in the query's own names is preferred to a renaming of it. The hash holds every number of the maths exactly, so different numbers
 * never meet here; the numbers of the prose around the maths ("… then find 2x") must agree too, up to
 * what OCR drops when either side was read from an image, leaving out a leading item label ("problem 12.",
 * "7.") that numbers the problem on its page. Confidence: 0.97 × the weaker reading's
 * confidence (1 for typed text, the weakest maths token for OCR).
 */
export async function mathsStage(
  query: RetrievalQuery,
  ports: Pick<HybridSearchPorts, 'catalog'>,
  settings: HybridSearchSettings,
  note: Note,
): Promise<MathsMatch | undefined> {
  const maths = query.maths;
  if (maths === undefined) {
    note({ stage: 'maths_signature', candidate: null, score: null, decision: 'skipped', reason: 'query has no maths signature' });
    return undefined;
  }
  // Only the query's own hash: a hash under an older version (`previousHash`, sent by producers up to
  // maths-sig/v3) was computed by another reading of the maths, so it may key another problem. Rows
  // indexed under it are re-keyed by the maths-reindex sweep, or missed and solved again.
  const candidates = await ports.catalog.findByMathsHashes([maths.hash]);
  if (candidates.length === 0) {
    note({ stage: 'maths_signature', candidate: null, score: null, decision: 'rejected', reason: `no problem indexed with maths ${maths.canonical} (${maths.intent})` });
    return undefined;
  }
  const queryNumbers = proseNumbers(query.normalisedText, maths.numbers);
  let best: MathsMatch | undefined;
  for (const candidate of candidates) {
    const relation = candidate.maths === undefined ? undefined : mathsRelation(maths, candidate.maths);
    if (relation === undefined || relation.kind === 'other') {
      const why = relation?.kind === 'other' ? relation.why : 'it has no maths';
      note({ stage: 'maths_signature', candidate: ref(candidate), score: null, decision: 'rejected', reason: `same hash, but ${why}` });
      continue;
    }
    const read = query.imageSha256 !== undefined || candidate.imageSha256 !== undefined;
    const tolerance = read ? settings.textAgreement.maxDroppedNumbers : 0;
    if (!numberMultisetsAgree(queryNumbers, proseNumbers(candidate.normalisedText, candidate.maths?.numbers ?? []), tolerance)) {
      note({
        stage: 'maths_signature',
        candidate: ref(candidate),
        score: null,
        decision: 'rejected',
        reason: `same maths ${maths.canonical} but the numbers around it differ`,
      });
      continue;
    }
    const reading = Math.min(maths.confidence, candidate.maths?.confidence ?? 0);
    const confidence = CONFIDENCE.mathsSignature * reading;
    const relabel = relation.kind === 'renamed' ? relation.relabel : undefined;
    const better = best === undefined || (best.relabel !== undefined && relabel === undefined) || ((best.relabel === undefined) === (relabel === undefined) && confidence > best.confidence);
    if (better) {
      const names = relabel === undefined ? '' : ` under the renaming ${describeRelabel(relabel)}`;
      const detail = `same maths ${maths.canonical} (${maths.intent})${names}; reading confidence query ${fmt(maths.confidence)}, candidate ${fmt(candidate.maths?.confidence ?? 0)}`;
      best = { problem: candidate, confidence, detail, ...(relabel === undefined ? {} : { relabel }) };
    }
  }
  return best;
}
