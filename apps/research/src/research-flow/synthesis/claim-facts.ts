/**
 * What two sentences must share besides their words to say the same thing: the same figures (every
 * number, single digits, signs and number words included, with its unit and bound), compared as a
 * multiset, and the same polarity. "at most 95 percent" and "85 percent" share most words but not a
 * figure; "X reduces Y" and "X does not reduce Y" share every content word but not a polarity.
 */

// "one" is left out: far more often a pronoun ("one of the") than a figure.
const NUMBER_WORDS: Readonly<Record<string, number>> = {
  zero: 0, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19, twenty: 20,
  thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90, hundred: 100, half: 0.5, twice: 2, double: 2, triple: 3,
};

// Bounds are read before negation: "no more than 95" is a bound (<= 95), not a denial.
const UPPER_BOUND_PHRASES = 'at most|up to|no more than|not more than|no greater than|less than|fewer than|under|below|max(?:imum)?(?: of)?';
const LOWER_BOUND_PHRASES = 'at least|no less than|not less than|no fewer than|not fewer than|more than|greater than|over|above|exceeds?|min(?:imum)?(?: of)?';
const UPPER_BOUND = new RegExp(`(?:${UPPER_BOUND_PHRASES})\\s*$`);
const LOWER_BOUND = new RegExp(`(?:${LOWER_BOUND_PHRASES})\\s*$`);
const APPROXIMATE = /(?:about|around|approximately|roughly|nearly|almost|some|~)\s*$/;
const BOUND_PHRASE = new RegExp(`\\b(?:${UPPER_BOUND_PHRASES}|${LOWER_BOUND_PHRASES})\\b`, 'gi');

/**
 * Units a figure can carry, as written after it: a closed class (measures, time, money, counts of
 * people and homes), so the word after a figure ("2 even", "the 2023 field study") is not taken for
 * one. Abbreviations are matched case-sensitively below (kW, MWh, °C); these words in lower case.
 */
const UNIT_WORDS = new Set(
  (
    'percent percentage point points pp times fold x ' +
    'second seconds minute minutes hour hours day days week weeks month months year years decade decades ' +
    'degree degrees kelvin watt watts kilowatt kilowatts megawatt megawatts gigawatt gigawatts joule joules ' +
    'gram grams kilogram kilograms tonne tonnes ton tons metre metres meter meters kilometre kilometres kilometer kilometers mile miles ' +
    'litre litres liter liters gallon gallons dollar dollars euro euros pound pounds cent cents ' +
    'people person persons patients participants users homes households houses buildings units studies trials countries ' +
    'thousand million millions billion billions trillion'
  ).split(' '),
);
// Abbreviated units: SI-style symbols with an optional prefix (kW, kWh, MWh, GW, km, kg, ms, °C, µg, m²), and a few others.
const UNIT_SYMBOL = /^(?:°[CFK]|[kMGTmµcn]?(?:W|Wh|J|g|m|m²|m³|s|l|L|V|A|Hz|Pa|t)|K|C|F|h|min|ppm|ppb|mph|kph|bn|USD|EUR|GBP|COP|SCOP|dB)$/;

/** Units as written after a figure, folded so `95 %`, `95%` and `95 percent` are one figure; '' when none is written. */
function unitOf(after: string): { readonly unit: string; readonly shown: string } {
  const match = /^(\s*)(%|per ?cent\b|percentage points?\b|°\s?[CFK]\b|[\p{L}µ°²³]+(?:-[\p{L}]+)?)/u.exec(after);
  if (match?.[2] === undefined) return { unit: '', shown: '' };
  const written = match[2];
  const lower = written.toLowerCase();
  const shown = `${match[1] ?? ''}${written}`;
  if (lower === '%' || /^per ?cent$/.test(lower)) return { unit: '%', shown };
  if (lower.startsWith('percentage') || lower === 'pp') return { unit: 'pp', shown };
  if (lower === 'times' || lower === 'fold' || lower === 'x') return { unit: 'x', shown };
  if (UNIT_SYMBOL.test(written.replace(/\s/g, ''))) return { unit: written.replace(/\s/g, ''), shown };
  if (UNIT_WORDS.has(lower)) return { unit: lower.replace(/s$/, ''), shown };
  return { unit: '', shown: '' };
}

const CURRENCY: Readonly<Record<string, string>> = { $: 'USD', '€': 'EUR', '£': 'GBP' };

/** A figure as it must match: bound (`<=`, `>=`, `~`, or none), signed value, unit (empty when none is written). */
export interface Figure {
  readonly bound: '' | '<=' | '>=' | '~';
  readonly value: number;
  readonly unit: string;
  /** As written in the sentence, for the report. */
  readonly text: string;
}

/** Every figure of a sentence, in order: digits (`1,200`, `2.5`, `7`, `-15`, `minus 15`) and number words (`three`). */
export function figuresOf(sentence: string): Figure[] {
  const figures: Figure[] = [];
  const pattern = /(?<![\p{L}\p{N}.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\p{L}\p{N}])|\b([A-Za-z]+)\b/gu;
  for (const match of sentence.matchAll(pattern)) {
    const digits = match[1];
    const word = match[2]?.toLowerCase();
    const magnitude = digits !== undefined ? Number(digits.replace(/,/g, '')) : word !== undefined ? NUMBER_WORDS[word] : undefined;
    if (magnitude === undefined || !Number.isFinite(magnitude)) continue;
    const start = match.index;
    const before = sentence.slice(Math.max(0, start - 25), start).toLowerCase();
    // A sign: "-15" or "−15" not inside a range ("10-15"), or the word "minus".
    const negative = /(?:^|[^\p{L}\p{N}])[-−]$/u.test(before) || /\bminus\s+$/.test(before);
    const after = sentence.slice(start + match[0].length, start + match[0].length + 25);
    const bound = UPPER_BOUND.test(before) ? '<=' : LOWER_BOUND.test(before) ? '>=' : APPROXIMATE.test(before) ? '~' : '';
    const currency = CURRENCY[before.slice(-1)];
    const written = unitOf(after);
    const unit = word === 'twice' || word === 'double' || word === 'triple' ? 'x' : (currency ?? written.unit);
    const sign = negative && digits !== undefined ? '-' : '';
    figures.push({ bound, value: negative ? -magnitude : magnitude, unit, text: `${currency === undefined ? '' : before.slice(-1)}${sign}${match[0]}${written.shown}`.trim() });
  }
  return figures;
}

const NEGATION = /\b(?:not|no|never|none|nothing|neither|nor|cannot|without|fails? to|failed to|lacks?|unable)\b|n't\b/i;

/** True when the sentence denies: "does not", "no evidence", "never", "cannot", "isn't" (a bound such as "no more than" is not a denial). */
export function isNegated(sentence: string): boolean {
  return NEGATION.test(sentence.replace(BOUND_PHRASE, ' '));
}

/** The facts of a sentence that must match for two similar sentences to be one finding. */
export interface ClaimFacts {
  readonly negated: boolean;
  readonly figures: readonly Figure[];
}

export function factsOf(sentence: string): ClaimFacts {
  return { negated: isNegated(sentence), figures: figuresOf(sentence) };
}

/**
 * Same polarity and the same figures as a multiset: each figure of one pairs with a figure of the
 * other of the same value and bound, whose unit is the same or not written on one side ("3 kW" and
 * "3 kWh" differ; "in 2020, ..." and "in 2020 ..." do not). Exact units pair first.
 */
export function sameFacts(a: ClaimFacts, b: ClaimFacts): boolean {
  if (a.negated !== b.negated || a.figures.length !== b.figures.length) return false;
  const open = [...b.figures];
  const take = (f: Figure, unitsMatch: (x: string, y: string) => boolean): boolean => {
    const i = open.findIndex((g) => g.value === f.value && g.bound === f.bound && unitsMatch(f.unit, g.unit));
    if (i < 0) return false;
    open.splice(i, 1);
    return true;
  };
  const unpaired = a.figures.filter((f) => !take(f, (x, y) => x === y));
  return unpaired.every((f) => take(f, (x, y) => x === '' || y === ''));
}

/** Whether the figures (not the polarity) of two claims differ. */
export function figuresDiffer(a: ClaimFacts, b: ClaimFacts): boolean {
  return !sameFacts({ ...a, negated: false }, { ...b, negated: false });
}

/** A figure as the report shows it: "at most 95 percent", "about 2.5 times". */
export function describeFigure(figure: Figure): string {
  const bound = { '': '', '<=': 'at most ', '>=': 'at least ', '~': 'about ' }[figure.bound];
  return `${bound}${figure.text}`;
}
