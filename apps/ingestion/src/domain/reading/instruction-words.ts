import type { OcrChar } from '@openpaw/providers/ocr';

/** The instructions a problem opens with (what it asks for): the reader's prose vocabulary. */
export const INSTRUCTIONS = ['solve', 'simplify', 'evaluate', 'calculate', 'work out', 'compute', 'find', 'factorise', 'factorize', 'expand', 'add the fractions'] as const;

/** Words shorter than this are not completed: too many other words lie a letter away ("the", "out"). */
const MIN_WORD_LENGTH = 4;
/** The instructions' words that a doubted letter may complete. */
const WORDS: readonly string[] = [...new Set(INSTRUCTIONS.flatMap((i) => i.split(' ')).filter((w) => w.length >= MIN_WORD_LENGTH))];
/** At most this many of a word's letters may be doubted: the rest must be read sure, as the word spells them. */
const MAX_DOUBTED_LETTERS = 2;
/** What may stand beside a word of prose: the line's ends, a space, punctuation. A digit or an operator beside it makes it maths. */
const PROSE_EDGE = /^(?:|\s|[:,.;!?])$/u;

const fold = (t: string): string => t.normalize('NFKC').toLowerCase();

/**
 * The letters of instruction words the reader read unsure (issue 25): a run of letters beside nothing but
 * spaces and punctuation that spells one word of `INSTRUCTIONS` when each doubted character in it is read
 * as one of the reader's own listings ("Simplify" with its "f" at 0.95, "i" at 0.03; "5olve" with "S"
 * listed) is that word: what the problem asks for is prose, and "simpliiy" asks nothing. Returns, by the
 * character's index, the listing the word reads (its own spelling, e.g. "S"). Only when exactly one word
 * fits, at most `MAX_DOUBTED_LETTERS` of its letters doubted and every other letter read sure as spelled;
 * a run beside a digit or an operator is maths and is left to the maths.
 */
export function instructionWordLetters(chars: readonly OcrChar[], isDoubted: (c: OcrChar) => boolean): Map<number, string> {
  const pinned = new Map<number, string>();
  const listings = (c: OcrChar): string[] => (isDoubted(c) ? [c.text, ...(c.alternatives ?? []).map((a) => a.text)] : [c.text]);
  const letterLike = (c: OcrChar): boolean => listings(c).some((t) => /^\p{L}$/u.test(t)) || (c.text === '' && isDoubted(c));
  let i = 0;
  while (i < chars.length) {
    if (!letterLike(chars[i]!)) {
      i += 1;
      continue;
    }
    let end = i;
    while (end < chars.length && letterLike(chars[end]!)) end += 1;
    const run = chars.slice(i, end).map((c, k) => ({ index: i + k, char: c }));
    const edges = [chars[i - 1]?.text ?? '', chars[end]?.text ?? ''];
    if (edges.every((e) => PROSE_EDGE.test(e)) && run.some((r) => isDoubted(r.char))) {
      const fits = WORDS.map((w) => spell(w, run, listings, isDoubted)).filter((f): f is Map<number, string> => f !== undefined);
      if (fits.length === 1) for (const [index, text] of fits[0]!) pinned.set(index, text);
    }
    i = end;
  }
  return pinned;
}

/** How the run spells `word`, by the listing each doubted character reads ('' skips it); undefined when it cannot. */
function spell(word: string, run: readonly { index: number; char: OcrChar }[], listings: (c: OcrChar) => string[], isDoubted: (c: OcrChar) => boolean): Map<number, string> | undefined {
  const go = (r: number, w: number, doubtedLetters: number): Map<number, string> | undefined => {
    if (r === run.length) return w === word.length ? new Map() : undefined;
    const { index, char } = run[r]!;
    if (!isDoubted(char)) {
      if (w >= word.length || fold(char.text) !== word[w]) return undefined;
      return go(r + 1, w + 1, doubtedLetters);
    }
    for (const t of listings(char)) {
      const rest = t === '' ? (char.ownInk === true ? undefined : go(r + 1, w, doubtedLetters)) : w < word.length && fold(t) === word[w] && doubtedLetters < MAX_DOUBTED_LETTERS ? go(r + 1, w + 1, doubtedLetters + 1) : undefined;
      if (rest !== undefined) return new Map([[index, t], ...rest]);
    }
    return undefined;
  };
  return go(0, 0, 0);
}
