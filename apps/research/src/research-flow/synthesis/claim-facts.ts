/**
 * What two sentences must share besides their words to say the same thing: the same figures (every
 * number, single digits and number words included, with its unit and bound) and the same polarity.
 * "at most 95 percent" and "85 percent" share most words but not a figure; "X reduces Y" and "X does
 * not reduce Y" share every content word but not a polarity.
 */

// "one" is left out: far more often a pronoun ("one of the") than a figure.
const NUMBER_WORDS: Readonly<Record<string, number>> = {
  zero: 0, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19, twenty: 20,
  thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90, hundred: 100, half: 0.5, twice: 2, double: 2, triple: 3,
};

const UPPER_BOUND = /(?:at most|up to|no more than|not more than|less than|fewer than|under|below|max(?:imum)?(?: of)?)\s*$/;
const LOWER_BOUND = /(?:at least|no less than|not less than|more than|over|above|exceeds?|min(?:imum)?(?: of)?)\s*$/;
const APPROXIMATE = /(?:about|around|approximately|roughly|nearly|almost|some|~)\s*$/;

/** Units as written after a figure, folded so `95 %`, `95%` and `95 percent` are one figure. */
function unitOf(after: string): string {
  const match = /^\s*(%|per ?cent\b|percentage points?\b|pp\b|[a-zµ°/]+(?:\/[a-z]+)?)/i.exec(after);
  if (match?.[1] === undefined) return '';
  const unit = match[1].toLowerCase();
  if (unit === '%' || unit.startsWith('per')) return '%';
  if (unit.startsWith('percentage') || unit === 'pp') return 'pp';
  return unit;
}

/** A figure as it must match: bound (`<=`, `>=`, `~`, or none), value, unit. */
export interface Figure {
  readonly bound: '' | '<=' | '>=' | '~';
  readonly value: number;
  readonly unit: string;
  /** As written in the sentence, for the report. */
  readonly text: string;
}

/** Every figure of a sentence, in order: digits (`1,200`, `2.5`, `7`) and number words (`three`). */
export function figuresOf(sentence: string): Figure[] {
  const figures: Figure[] = [];
  const pattern = /(?<![\p{L}\p{N}.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\p{L}\p{N}])|\b([A-Za-z]+)\b/gu;
  for (const match of sentence.matchAll(pattern)) {
    const digits = match[1];
    const word = match[2]?.toLowerCase();
    const value = digits !== undefined ? Number(digits.replace(/,/g, '')) : word !== undefined ? NUMBER_WORDS[word] : undefined;
    if (value === undefined || !Number.isFinite(value)) continue;
    const start = match.index;
    const before = sentence.slice(Math.max(0, start - 25), start).toLowerCase();
    const after = sentence.slice(start + match[0].length, start + match[0].length + 25);
    const bound = UPPER_BOUND.test(before) ? '<=' : LOWER_BOUND.test(before) ? '>=' : APPROXIMATE.test(before) ? '~' : '';
    const unit = word === 'twice' || word === 'double' || word === 'triple' ? 'x' : unitOf(after);
    const shownUnit = /^\s*(%|per ?cent\b|[a-zµ°/%]+)/i.exec(after)?.[0] ?? '';
    figures.push({ bound, value, unit, text: `${match[0]}${unit === '' ? '' : shownUnit}`.trim() });
  }
  return figures;
}

const NEGATION = /\b(?:not|no|never|none|nothing|neither|nor|cannot|without|fails? to|failed to|lacks?|unable)\b|n't\b/i;

/** True when the sentence denies: "does not", "no evidence", "never", "cannot", "isn't". */
export function isNegated(sentence: string): boolean {
  return NEGATION.test(sentence);
}

/** What two similar sentences must share to be one finding: polarity and figures (as a multiset). */
export function factKey(sentence: string): string {
  const figures = figuresOf(sentence)
    .map((f) => `${f.bound}${f.value}${f.unit}`)
    .sort();
  return `${isNegated(sentence) ? 'neg' : 'pos'}|${figures.join(',')}`;
}
