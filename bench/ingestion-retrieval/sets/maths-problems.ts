import { pick, randomInt, seededRandom } from '../support/random.js';

/**
 * The held-out maths set of issue 16: problems the local solver can solve (linear equations,
 * arithmetic, sums of powers), each with the ways other users submit the same maths (paraphrase
 * styles) and a sibling with other numbers (which must never be served in its place). Built from a
 * fixed seed, so every run and every machine sees the same set; `^` marks an exponent, which the image
 * renderer draws raised and smaller.
 */
export interface MathsProblem {
  readonly id: string;
  readonly kind: 'linear' | 'arithmetic' | 'powers';
  /** As first submitted (typed, or printed on the original image). */
  readonly original: string;
  readonly paraphrases: readonly { readonly style: string; readonly text: string }[];
  /** The same wording with one number changed: another problem. */
  readonly sibling: string;
}

const UNKNOWNS = ['x', 'y', 'n', 't'];

const ONES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

/** 0..99 in words ("twenty-three"). */
function inWords(n: number): string {
  if (n < 20) return ONES[n] ?? String(n);
  const ten = TENS[Math.floor(n / 10)] ?? '';
  return n % 10 === 0 ? ten : `${ten}-${ONES[n % 10] ?? ''}`;
}

function linear(r: () => number, id: string): MathsProblem {
  const a = randomInt(r, 2, 9);
  const b = randomInt(r, 2, 40);
  const minus = r() < 0.5;
  const v = pick(r, UNKNOWNS);
  const w = v === 'x' ? 'y' : 'x';
  const c = randomInt(r, 41, 99);
  const op = minus ? '−' : '+';
  const eq = (u: string, cc = c): string => `${a}${u} ${op} ${b} = ${cc}`;
  return {
    id,
    kind: 'linear',
    original: `Solve ${eq(v)}.`,
    paraphrases: [
      { style: 'question', text: `What is ${v} when ${eq(v)}?` },
      { style: 'value-of', text: `Find the value of ${v} if ${eq(v)}.` },
      { style: 'sides-swapped', text: `Solve ${c} = ${a}${v} ${op} ${b}.` },
      { style: 'terms-reordered', text: minus ? `Solve −${b} + ${a}${v} = ${c}.` : `Solve ${b} + ${a}${v} = ${c}.` },
      { style: 'unknown-renamed', text: `Solve ${eq(w)} for ${w}.` },
      { style: 'word-operators', text: `${a} times ${v} ${minus ? 'minus' : 'plus'} ${b} equals ${c}. What is ${v}?` },
      { style: 'context-and-symbols', text: `Homework question: determine ${v} given that ${a}·${v} ${op} ${b} = ${c}.` },
      { style: 'ascii', text: `solve ${a}*${v}${minus ? '-' : '+'}${b}=${c}` },
      // Styles the maths signature does not read (numbers in words, maths told as a story): they should
      // miss rather than hit something else; measured to show the limit, not to be passed.
      { style: 'hard:number-words', text: `${inWords(a)} times ${v} ${minus ? 'minus' : 'plus'} ${inWords(b)} equals ${inWords(c)}. What is ${v}?` },
      { style: 'hard:story', text: `If ${a} times a number is ${minus ? 'decreased' : 'increased'} by ${b}, the result is ${c}. Find the number.` },
    ],
    sibling: `Solve ${eq(v, c + randomInt(r, 1, 5))}.`,
  };
}

function arithmetic(r: () => number, id: string): MathsProblem {
  const a = randomInt(r, 3, 19);
  const b = randomInt(r, 3, 19);
  const c = randomInt(r, 2, 99);
  return {
    id,
    kind: 'arithmetic',
    original: `Evaluate ${a} × ${b} + ${c}.`,
    paraphrases: [
      { style: 'question', text: `What is ${c} + ${a} × ${b}?` },
      { style: 'word-operators', text: `Calculate ${a} times ${b} plus ${c}.` },
      { style: 'operands-swapped', text: `Work out ${b} × ${a} + ${c}.` },
      { style: 'how-much', text: `How much is ${a}·${b} + ${c}?` },
      { style: 'ascii', text: `compute ${a}*${b}+${c}` },
    ],
    sibling: `Evaluate ${a} × ${b} + ${c + randomInt(r, 1, 9)}.`,
  };
}

function powers(r: () => number, id: string): MathsProblem {
  const a = randomInt(r, 2, 9);
  const e = randomInt(r, 2, 10);
  const b = randomInt(r, 2, 9);
  const f = randomInt(r, 2, 6);
  return {
    id,
    kind: 'powers',
    original: `Evaluate ${a}^${e} + ${b}^${f}.`,
    paraphrases: [
      { style: 'question', text: `What is ${b}^${f} + ${a}^${e}?` },
      { style: 'ascii', text: `compute ${a}**${e}+${b}**${f}` },
      { style: 'word-operators', text: `Find the value of ${a} to the power of ${e} plus ${b} to the power of ${f}.` },
      { style: 'simplify', text: `Simplify ${a}^${e} + ${b}^${f}.` },
    ],
    sibling: `Evaluate ${a}^${e === 10 ? 9 : e + 1} + ${b}^${f}.`,
  };
}

/** `count` problems: half linear equations, a quarter arithmetic, a quarter sums of powers. */
export function mathsProblemSet(count = 40, seed = 1616): MathsProblem[] {
  const r = seededRandom(seed);
  const set: MathsProblem[] = [];
  for (let i = 0; i < count; i += 1) {
    const id = `m${String(i).padStart(3, '0')}`;
    set.push(i % 4 < 2 ? linear(r, id) : i % 4 === 2 ? arithmetic(r, id) : powers(r, id));
  }
  return set;
}

