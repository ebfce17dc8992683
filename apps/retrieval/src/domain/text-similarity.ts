/** Edit distance (insert, delete, substitute; unit costs) over UTF-16 code units, two rows of memory. */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  let previous = new Uint32Array(short.length + 1);
  let current = new Uint32Array(short.length + 1);
  for (let i = 0; i <= short.length; i += 1) previous[i] = i;
  for (let j = 1; j <= long.length; j += 1) {
    current[0] = j;
    const cj = long.charCodeAt(j - 1);
    for (let i = 1; i <= short.length; i += 1) {
      const substitution = (previous[i - 1] ?? 0) + (short.charCodeAt(i - 1) === cj ? 0 : 1);
      const deletion = (previous[i] ?? 0) + 1;
      const insertion = (current[i - 1] ?? 0) + 1;
      current[i] = Math.min(substitution, deletion, insertion);
    }
    [previous, current] = [current, previous];
  }
  return previous[short.length] ?? 0;
}

/** 1 − distance / longer length: 1 for equal strings, 0 for nothing in common. */
export function editSimilarity(a: string, b: string): number {
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  return 1 - levenshtein(a, b) / longer;
}

/**
 * Spaces are the least reliable thing OCR produces (it splits and joins words at will), and the
 * normalised text already made operator spacing canonical, so texts are compared without them.
 */
export function compactForComparison(normalisedText: string): string {
  return normalisedText.replace(/\s+/g, '');
}

/** Every number in a text, in order. Two problems of one template usually differ only here. */
export function numbersIn(text: string): string[] {
  return text.match(/\d+(?:[.,]\d+)*/g) ?? [];
}

/**
 * Whether two readings carry the same numbers, tolerating what OCR does to them. Two problems of one
 * template differ by *substituting* numbers ("3x + 7 = 22" vs "5x + 7 = 22"), while OCR noise mostly
 * *drops or adds* a short token (a superscript exponent read as "?", or "x²" read as "x2"). So the
 * number sequences are aligned by longest common subsequence and:
 * - a gap where both sides have unmatched numbers is a substitution: different problems;
 * - a gap where one side alone has unmatched numbers is tolerated if they are single digits, at most
 *   `maxDropped` of them in all.
 */
export function numbersConsistent(a: readonly string[], b: readonly string[], maxDropped = 2): boolean {
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i -= 1) {
    const row = lcs[i];
    const below = lcs[i + 1];
    if (row === undefined || below === undefined) continue;
    for (let j = m - 1; j >= 0; j -= 1) {
      row[j] = a[i] === b[j] ? (below[j + 1] ?? 0) + 1 : Math.max(below[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  let dropped = 0;
  let gapA: string[] = [];
  let gapB: string[] = [];
  const closeGap = (): boolean => {
    if (gapA.length > 0 && gapB.length > 0) return false;
    for (const token of [...gapA, ...gapB]) {
      if (token.length > 1) return false;
      dropped += 1;
    }
    gapA = [];
    gapB = [];
    return dropped <= maxDropped;
  };
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      if (!closeGap()) return false;
      i += 1;
      j += 1;
    } else if ((lcs[i + 1]?.[j] ?? 0) >= (lcs[i]?.[j + 1] ?? 0)) {
      gapA.push(a[i] ?? '');
      i += 1;
    } else {
      gapB.push(b[j] ?? '');
      j += 1;
    }
  }
  gapA.push(...a.slice(i));
  gapB.push(...b.slice(j));
  return closeGap();
}

export interface TextAgreement {
  /** Edit similarity of the compacted texts, 0..1. */
  readonly similarity: number;
  /** Whether the numbers agree up to OCR noise (see `numbersConsistent`). */
  readonly numbersConsistent: boolean;
  readonly agree: boolean;
}

export interface TextAgreementBounds {
  /** Least overall similarity for two readings to count as the same problem. */
  readonly minSimilarity: number;
  /** Single-digit numbers one reading may lack (OCR'd exponents) before the numbers disagree. */
  readonly maxDroppedNumbers: number;
}

/**
 * Calibrated in bench/ingestion-retrieval/near-duplicate (its output prints both distributions): OCR
 * readings of one problem's degraded copies stay above the similarity bound with consistent numbers,
 * while different problems that share a layout — including one template with other numbers, whose
 * texts are often more than 0.95 similar — fail the number check or the bound.
 */
export const DEFAULT_TEXT_AGREEMENT: TextAgreementBounds = { minSimilarity: 0.85, maxDroppedNumbers: 2 };

export function textAgreement(a: string, b: string, bounds: TextAgreementBounds = DEFAULT_TEXT_AGREEMENT): TextAgreement {
  const similarity = editSimilarity(compactForComparison(a), compactForComparison(b));
  const consistent = numbersConsistent(numbersIn(a), numbersIn(b), bounds.maxDroppedNumbers);
  return { similarity, numbersConsistent: consistent, agree: similarity >= bounds.minSimilarity && consistent };
}

/**
 * Whether two texts hold the same numbers in any order (a paraphrase reorders them: "23 = 4x - 9").
 * Numbers only one side has are tolerated if single digits, at most `maxDropped` of them (what OCR drops
 * or adds); a number on each side that the other lacks is a substitution, so a different problem.
 */
export function numberMultisetsAgree(a: readonly string[], b: readonly string[], maxDropped: number): boolean {
  const counts = new Map<string, number>();
  for (const n of a) counts.set(n, (counts.get(n) ?? 0) + 1);
  for (const n of b) counts.set(n, (counts.get(n) ?? 0) - 1);
  const onlyA = [...counts].filter(([, c]) => c > 0);
  const onlyB = [...counts].filter(([, c]) => c < 0);
  if (onlyA.length > 0 && onlyB.length > 0) return false;
  let dropped = 0;
  for (const [n, c] of [...onlyA, ...onlyB]) {
    if (n.length > 1) return false;
    dropped += Math.abs(c);
  }
  return dropped <= maxDropped;
}
