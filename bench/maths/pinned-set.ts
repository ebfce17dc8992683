/**
 * Issue 24's pinned maths set: a seeded generator, committed before the engine changes it measures.
 * Every example the issue names is in it verbatim; the rest is generated from templates with random
 * numbers, variable names other than x and several phrasings. Labels come from the parameters the
 * generator chose (roots first, equations built from them), never from the engine under test.
 * Items labelled `refuse` must be refused: answering one counts as wrong.
 */
import { type Label, num, real } from './labels.js';
import { seededRandom } from '../ingestion-retrieval/support/random.js';

export interface PinnedItem {
  readonly category: string;
  readonly text: string;
  /** The answer, or 'refuse' when the only right outcome is a refusal. */
  readonly label: Label | 'refuse';
  /** When set, the final answer as written must match it too (a surd left as a surd, a fraction as a fraction). */
  readonly written?: RegExp;
}

/** The benches' one seeded generator (mulberry32), so a seed always gives the same set. */
export const seeded = seededRandom;

type Rng = () => number;
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
const nonZero = (rng: Rng, lo: number, hi: number): number => {
  for (;;) {
    const n = int(rng, lo, hi);
    if (n !== 0) return n;
  }
};
const signed = (n: number): string => (n < 0 ? `- ${-n}` : `+ ${n}`);
const coef = (n: number, v: string): string => (n === 1 ? v : n === -1 ? `-${v}` : `${n}${v}`);
const VARIABLES = ['x', 'y', 'a', 'b', 'k', 'n', 'm', 'p', 't', 'z'] as const;
const PER_CATEGORY = 24;

const repeat = (category: string, make: (rng: Rng) => Omit<PinnedItem, 'category'>) => (rng: Rng): PinnedItem[] =>
  Array.from({ length: PER_CATEGORY }, () => ({ category, ...make(rng) }));

/** The issue's own examples, verbatim, with their answers. */
export const ISSUE_EXAMPLES: readonly PinnedItem[] = [
  { category: 'issue_examples', text: 'solve fory: sy-4=2y+11', label: 'refuse' },
  { category: 'issue_examples', text: 'Solve 5y - 4 = 2y + 11', label: real(5) },
  { category: 'issue_examples', text: 'Solve x + y = 10, x - y = 2', label: { kind: 'assignment', values: { x: 6, y: 4 } } },
  { category: 'issue_examples', text: 'Solve x + y = 10, y - x = 2', label: { kind: 'assignment', values: { x: 4, y: 6 } } },
  { category: 'issue_examples', text: 'If b = 2a and a + b = 9, find a', label: { kind: 'assignment', values: { a: 3, b: 6 } } },
  { category: 'issue_examples', text: 'If a = 2b and a + b = 9, find a', label: { kind: 'assignment', values: { a: 6, b: 3 } } },
  { category: 'issue_examples', text: 'Five more than twice a number is seventeen; find the number', label: real(6) },
  { category: 'issue_examples', text: 'Multiply twelve by thirteen', label: num(156) },
  { category: 'issue_examples', text: 'Find x.', label: 'refuse' },
  { category: 'issue_examples', text: 'Evaluate 10^10^10', label: 'refuse' },
  { category: 'issue_examples', text: `Evaluate ${'('.repeat(10_000)}1${')'.repeat(10_000)}`, label: 'refuse' },
  { category: 'issue_examples', text: 'Evaluate 1/0', label: 'refuse' },
  { category: 'issue_examples', text: 'Solve x + y = 3, 2x + 2y = 6', label: { kind: 'all_values' } },
  { category: 'issue_examples', text: 'Solve x + y = 3, x + y = 4', label: { kind: 'no_solution' } },
  { category: 'issue_examples', text: 'Solve 2х + 1 = 7', label: real(3) },
  { category: 'issue_examples', text: 'Solve ２x + 1 = 7', label: real(3) },
];

const linearEquation = repeat('linear_equation', (rng) => {
  const v = pick(rng, VARIABLES);
  const root = int(rng, -9, 12);
  const a = nonZero(rng, -9, 9);
  const c = pick(rng, [0, nonZero(rng, -5, 5)].filter((n) => n !== a));
  const b = int(rng, -20, 20);
  const d = (a - c) * root + b;
  const text = `${coef(a, v)} ${signed(b)} = ${c === 0 ? String(d) : `${coef(c, v)} ${signed(d)}`}`;
  const phrasing = pick(rng, [`Solve ${text}`, `Solve for ${v}: ${text}`, `Find ${v} if ${text}.`, `${text}. What is ${v}?`]);
  return { text: phrasing, label: real(root) };
});

const linearSystem = repeat('linear_system', (rng) => {
  const [u, w] = pick(rng, [['x', 'y'], ['a', 'b'], ['m', 'n'], ['p', 'q'], ['s', 't']] as const);
  const [su, sw] = [int(rng, -6, 9), int(rng, -6, 9)];
  let rows: number[][];
  do rows = [[nonZero(rng, -4, 5), nonZero(rng, -4, 5)], [nonZero(rng, -4, 5), nonZero(rng, -4, 5)]];
  while (rows[0]![0]! * rows[1]![1]! - rows[0]![1]! * rows[1]![0]! === 0);
  const equations = rows.map(([p, q]) => `${coef(p!, u)} ${q! < 0 ? '-' : '+'} ${coef(Math.abs(q!), w)} = ${p! * su + q! * sw}`);
  const phrasing = pick(rng, [`Solve ${equations.join(', ')}`, `Solve simultaneously: ${equations.join(' and ')}`, `Find ${u} and ${w} given ${equations.join('; ')}`]);
  return { text: phrasing, label: { kind: 'assignment', values: { [u]: su, [w]: sw } } };
});

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const inWords = (n: number): string => (n <= 20 ? NUMBER_WORDS[n]! : `${TENS[Math.floor(n / 10)]}${n % 10 === 0 ? '' : `-${NUMBER_WORDS[n % 10]}`}`);
/** A number as a problem says it: in words (up to 99) six times in ten, else in digits. */
export const spoken = (rng: Rng, n: number): string => (n <= 99 && rng() < 0.6 ? inWords(n) : String(n));

const worded = repeat('worded', (rng) => {
  const template = int(rng, 0, 7);
  const [p, q] = [int(rng, 2, 15), int(rng, 2, 15)];
  const unknown = int(rng, 1, 12);
  switch (template) {
    case 0:
      return { text: `${capital(spoken(rng, q))} more than ${pick(rng, ['twice', 'two times'])} a number is ${spoken(rng, 2 * unknown + q)}; find the number`, label: real(unknown) };
    case 1:
      return { text: `Multiply ${spoken(rng, p)} by ${spoken(rng, q)}`, label: num(p * q) };
    case 2:
      return { text: `What is the sum of ${spoken(rng, p)} and ${spoken(rng, q)}?`, label: num(p + q) };
    case 3:
      return { text: `What is the product of ${spoken(rng, p)} and ${spoken(rng, q)}?`, label: num(p * q) };
    case 4:
      return { text: `A number times ${spoken(rng, p)} equals ${spoken(rng, p * unknown)}. What is the number?`, label: real(unknown) };
    case 5:
      return { text: `${capital(spoken(rng, q))} less than a number is ${spoken(rng, unknown + 20)}. Find the number.`, label: real(unknown + 20 + q) };
    case 6:
      return { text: `What is ${spoken(rng, p)} squared?`, label: num(p * p) };
    default:
      return { text: `What is half of ${spoken(rng, 2 * p)}?`, label: num(p) };
  }
});

export function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const PYTHAGOREAN = [[3, 4, 5], [5, 12, 13], [8, 15, 17], [7, 24, 25], [6, 8, 10], [9, 12, 15], [20, 21, 29], [9, 40, 41]] as const;
const pythagoras = repeat('pythagoras', (rng) => {
  // One scale for all three sides. The first version scaled each side by its own draw, so most
  // "right triangles" were not right and their labels were not the hypotenuse or leg of the sides
  // given (legs 3 and 8 labelled 5). The three draws stay, so every later item of the set is unchanged.
  const triple = pick(rng, PYTHAGOREAN);
  const [scale] = triple.map(() => pick(rng, [1, 1, 2, 3]));
  const [a, b, c] = triple.map((n) => n * scale!) as [number, number, number];
  const unit = pick(rng, ['cm', 'm', 'mm']);
  if (rng() < 0.5) {
    return { text: pick(rng, [`A right-angled triangle has legs ${a} ${unit} and ${b} ${unit}. Find the hypotenuse.`, `The two shorter sides of a right triangle are ${a} ${unit} and ${b} ${unit}. How long is the hypotenuse?`]), label: num(c) };
  }
  return { text: `A right-angled triangle has hypotenuse ${c} ${unit} and one leg ${a} ${unit}. Find the other leg.`, label: num(b) };
});

const surd = repeat('surd', (rng) => {
  const outside = int(rng, 2, 9);
  const inside = pick(rng, [2, 3, 5, 6, 7, 10, 11]);
  return { text: pick(rng, [`Simplify √${outside * outside * inside}`, `Simplify sqrt(${outside * outside * inside})`, `Write √${outside * outside * inside} in simplest surd form.`]), label: num(outside * Math.sqrt(inside)), written: new RegExp(`^${outside}\\s*√\\s*${inside}$`) };
});

const fractionDecimalPercent = repeat('fraction_decimal_percent', (rng) => {
  const denominator = pick(rng, [2, 4, 5, 8, 10, 20, 25, 40]);
  let numerator = int(rng, 1, denominator - 1);
  const g = gcd(numerator, denominator);
  numerator /= g;
  const d = denominator / g;
  const decimal = numerator / d;
  switch (int(rng, 0, 3)) {
    case 0:
      return { text: `Write ${decimal} as a fraction in its simplest form.`, label: num(decimal), written: new RegExp(`^${numerator}\\s*/\\s*${d}$`) };
    case 1:
      return { text: `Convert ${numerator}/${d} to a decimal.`, label: num(decimal) };
    case 2:
      return { text: `Write ${numerator}/${d} as a percentage.`, label: num(decimal * 100), written: /%$/ };
    default:
      return { text: `Write ${+(decimal * 100).toFixed(4)}% as a decimal.`, label: num(decimal) };
  }
});

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

const line = repeat('line', (rng) => {
  const [x1, y1] = [int(rng, -8, 8), int(rng, -8, 8)];
  let x2 = int(rng, -8, 8);
  if (x2 === x1) x2 += 3;
  const y2 = y1 + (x2 - x1) * nonZero(rng, -3, 3);
  const points = `(${x1}, ${y1}) and (${x2}, ${y2})`;
  const slope = (y2 - y1) / (x2 - x1);
  switch (int(rng, 0, 3)) {
    case 0:
      return { text: pick(rng, [`Find the gradient of the line through ${points}.`, `What is the slope of the line passing through ${points}?`]), label: num(slope) };
    case 1:
      return { text: `Find the midpoint of ${points}.`, label: { kind: 'point', coordinates: [(x1 + x2) / 2, (y1 + y2) / 2] } };
    case 2:
      return { text: `Find the distance between ${points}.`, label: num(Math.hypot(x2 - x1, y2 - y1)) };
    default:
      return { text: `Find the equation of the line through ${points}.`, label: { kind: 'expression', expression: `${slope} * x + ${y1 - slope * x1}`, variable: 'x' } };
  }
});

const statistics = repeat('statistics', (rng) => {
  const data = Array.from({ length: int(rng, 5, 9) }, () => int(rng, 1, 30));
  const list = data.join(', ');
  const sorted = [...data].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = sorted.length % 2 === 1 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  switch (int(rng, 0, 3)) {
    case 0:
      return { text: `Find the mean of ${list}.`, label: num(data.reduce((s, n) => s + n, 0) / data.length) };
    case 1:
      return { text: `What is the median of ${list}?`, label: num(median) };
    case 2: {
      const withMode = [...data, data[0]!, data[0]!];
      return { text: `Find the mode of ${withMode.join(', ')}.`, label: num(modeOf(withMode)) };
    }
    default:
      return { text: `Find the range of ${list}.`, label: num(sorted.at(-1)! - sorted[0]!) };
  }
});

function modeOf(data: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const n of data) counts.set(n, (counts.get(n) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]![0];
}

const probability = repeat('probability', (rng) => {
  switch (int(rng, 0, 3)) {
    case 0: {
      const face = int(rng, 1, 6);
      return { text: `A fair six-sided die is rolled. What is the probability of rolling a ${face}?`, label: num(1 / 6) };
    }
    case 1: {
      const at = int(rng, 2, 5);
      return { text: `A fair die is rolled. What is the probability of getting a number greater than ${at}?`, label: num((6 - at) / 6) };
    }
    case 2: {
      const tosses = int(rng, 1, 4);
      return { text: `A fair coin is tossed ${tosses} times. What is the probability of getting heads every time?`, label: num(0.5 ** tosses) };
    }
    default: {
      const [red, blue] = [int(rng, 1, 9), int(rng, 1, 9)];
      return { text: `A bag holds ${red} red and ${blue} blue marbles. One is picked at random. What is the probability that it is red?`, label: num(red / (red + blue)) };
    }
  }
});

const absoluteValue = repeat('absolute_value', (rng) => {
  const v = pick(rng, VARIABLES);
  const a = nonZero(rng, 1, 5);
  const b = int(rng, -9, 9);
  const c = int(rng, 1, 15);
  return { text: pick(rng, [`Solve |${coef(a, v)} ${signed(b)}| = ${c}`, `Solve the equation |${coef(a, v)} ${signed(b)}| = ${c}.`]), label: real((c - b) / a, (-c - b) / a) };
});

/**
 * |a·v + b| (relation) c, written several ways; the label from the parameters: inside the two values
 * where a·v + b = ±c for "<", outside them for ">", and the degenerate c ≤ 0 by hand.
 */
const absoluteValueInequality = repeat('absolute_value_inequality', (rng) => {
  const v = pick(rng, VARIABLES);
  const a = nonZero(rng, -4, 5);
  const b = int(rng, -9, 9);
  const c = int(rng, -2, 12);
  const op = pick(rng, ['<', '<=', '>', '>='] as const);
  const inside = `|${coef(a, v)} ${signed(b)}|`;
  const [shown, mirrored] = [{ '<': pick(rng, ['<']), '<=': pick(rng, ['<=', '≤']), '>': '>', '>=': pick(rng, ['>=', '≥']) }[op], { '<': '>', '<=': '>=', '>': '<', '>=': '<=' }[op]];
  const k = int(rng, 2, 4);
  const d = int(rng, -6, 6);
  const text = pick(rng, [
    `Solve ${inside} ${shown} ${c}`,
    `Solve the inequality ${inside} ${shown} ${c}.`,
    `For which values of ${v} is ${inside} ${shown} ${c}?`,
    `Solve ${c} ${mirrored} ${inside}`,
    `Solve ${k}${inside} ${signed(d)} ${shown} ${k * c + d}`,
  ]);
  return { text, label: absoluteInequalityLabel(a, b, c, op) };
});

function absoluteInequalityLabel(a: number, b: number, c: number, op: '<' | '<=' | '>' | '>='): Label {
  const closed = op === '<=' || op === '>=';
  const below = op === '<' || op === '<=';
  const root = -b / a;
  if (c < 0 || (c === 0 && !closed)) {
    if (below) return { kind: 'no_solution' };
    if (c < 0) return { kind: 'all_values' };
    return { kind: 'interval_set', intervals: [{ to: { value: root, closed: false } }, { from: { value: root, closed: false } }] };
  }
  if (c === 0) return below ? { kind: 'interval_set', intervals: [{ from: { value: root, closed: true }, to: { value: root, closed: true } }] } : { kind: 'all_values' };
  const [low, high] = [(-c - b) / a, (c - b) / a].sort((x, y) => x - y) as [number, number];
  return below
    ? { kind: 'interval_set', intervals: [{ from: { value: low, closed }, to: { value: high, closed } }] }
    : { kind: 'interval_set', intervals: [{ to: { value: low, closed } }, { from: { value: high, closed } }] };
}

const trigonometry = repeat('trigonometry', (rng) => {
  const angle = int(rng, 15, 75);
  const side = int(rng, 3, 20);
  const rad = (angle * Math.PI) / 180;
  const round2 = (n: number): number => Math.round(n * 100) / 100;
  switch (int(rng, 0, 2)) {
    case 0:
      return { text: `In a right-angled triangle the hypotenuse is ${side} cm and one angle is ${angle}°. Find the side opposite that angle, to 2 d.p.`, label: num(round2(side * Math.sin(rad))) };
    case 1:
      return { text: `In a right-angled triangle the side adjacent to an angle of ${angle}° is ${side} cm. Find the opposite side to 2 d.p.`, label: num(round2(side * Math.tan(rad))) };
    default:
      return { text: `In a right-angled triangle the hypotenuse is ${side} m and one angle is ${angle}°. Find the side adjacent to that angle, to 2 d.p.`, label: num(round2(side * Math.cos(rad))) };
  }
});

const areaVolume = repeat('area_volume', (rng) => {
  const [l, w, h] = [int(rng, 2, 20), int(rng, 2, 20), int(rng, 2, 20)];
  switch (int(rng, 0, 3)) {
    case 0:
      return { text: `A rectangle is ${l} cm long and ${w} cm wide. Find its area.`, label: num(l * w) };
    case 1:
      return { text: `Find the area of a triangle with base ${l} cm and height ${h} cm.`, label: num((l * h) / 2) };
    case 2:
      return { text: `Find the volume of a cuboid ${l} cm by ${w} cm by ${h} cm.`, label: num(l * w * h) };
    default:
      return { text: `A trapezium has parallel sides ${l} cm and ${w} cm and height ${h} cm. Find its area.`, label: num(((l + w) * h) / 2) };
  }
});

/** Junk next to or inside the maths span (OCR misreads, stray letters): the only right outcome is a refusal. */
const junkTokens = repeat('junk_tokens', (rng) => {
  const v = pick(rng, ['x', 'y', 'n', 'k']);
  const a = int(rng, 2, 9);
  const b = int(rng, 1, 20);
  const c = a * int(rng, 1, 9) + b;
  const junk = pick(rng, ['s', 'qz', 'lo', 'fo', 'rt', 'ss']);
  switch (int(rng, 0, 3)) {
    case 0:
      return { text: `solve for${v}: ${junk}${v}-${b}=${c}`, label: 'refuse' };
    case 1:
      return { text: `Solve ${a}${v} + ${b} = ${c}${junk}`, label: 'refuse' };
    case 2:
      return { text: `Solve ${a}${v} ${junk} + ${b} = ${c}`, label: 'refuse' };
    default:
      return { text: `Solve ${a}${junk}${v} + ${b} = ${c}`, label: 'refuse' };
  }
});

/** Problems that must be refused: a figure the text does not describe, ambiguous wording, absurd input. */
const mustRefuse = repeat('expected_refusal', (rng) => {
  const n = int(rng, 2, 30);
  return {
    text: pick(rng, [
      'Find x.',
      `Find the angle marked ${pick(rng, ['x', 'y', 'θ'])} in the diagram.`,
      `Using the figure, find the length of side ${pick(rng, ['AB', 'PQ', 'XY'])}.`,
      `What is a number plus ${n}?`,
      `Evaluate ${n}/0`,
      `Evaluate ${n}^${n}^${n}^${n}`,
      `${'9'.repeat(400)} + ${n}`,
    ]),
    label: 'refuse',
  };
});

/** Equations with no solution or every value a solution: answered exactly, never with a number. */
const degenerate = repeat('no_or_every_solution', (rng) => {
  const v = pick(rng, VARIABLES);
  const [a, b] = [int(rng, 2, 30), int(rng, 1, 9)];
  return rng() < 0.5
    ? { text: `Solve ${a}${v} + ${b} = ${a}${v} + ${b + int(rng, 1, 5)} for ${v}`, label: { kind: 'no_solution' } }
    : { text: `Solve ${a}(${v} + ${b}) = ${a}${v} + ${a * b}`, label: { kind: 'all_values' } };
});

const GENERATORS = [degenerate, linearEquation, linearSystem, worded, pythagoras, surd, fractionDecimalPercent, line, statistics, probability, absoluteValue, trigonometry, areaVolume, junkTokens, mustRefuse, absoluteValueInequality];

/** Seed 1 was used while developing; seed 2 is held out and run only for the report. */
export const DEVELOPMENT_SEED = 1;
export const HELD_OUT_SEED = 2;

export function pinnedSet(seed: number): PinnedItem[] {
  const rng = seeded(seed);
  return [...ISSUE_EXAMPLES, ...GENERATORS.flatMap((generate) => generate(rng))];
}
