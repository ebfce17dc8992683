import { Rational } from '../core/rational.js';
import { sameNumber } from '../core/same-number.js';
import { readMaths } from '../text/reading.js';
import type { Answer, Complex, EngineOutcome, EngineSolution, IntervalEnd } from '../types.js';

/**
 * A model's translation of a problem's words into maths, held against the deterministic reader's:
 * - `agrees`: the reader read the words, and the engine's answer to the translation is its answer to
 *   the reader's maths (the same number, roots, system…, whatever letter the translation chose);
 * - `unverified`: the reader read no maths in the words, read other maths, or the engine cannot
 *   solve the translation. `translated` is the engine's solution of the translation, where it has one.
 */
export type TranslationCheck =
  | { readonly verdict: 'agrees'; readonly reader: EngineSolution; readonly translated: EngineSolution }
  | { readonly verdict: 'unverified'; readonly detail: string; readonly translated?: EngineSolution };

/**
 * The verdict on a translation from the engine's two outcomes: on the problem as written (the
 * deterministic reader's maths) and on the translation. Pure: the caller solves both (on the bounded
 * engine), so the verdict costs no work of its own beyond reading the problem once.
 */
export function translationVerdict(problem: string, translation: string, reader: EngineOutcome, translated: EngineOutcome): TranslationCheck {
  const solution = translated.solved ? { translated } : {};
  if (!translated.solved) return { verdict: 'unverified', detail: `the maths engine cannot solve the model's translation "${translation}" (${translated.reason})` };
  if (!reader.solved) {
    const reading = readMaths(problem);
    const unread = 'refused' in reading ? reading.refused : reading.read.worded === undefined && reading.read.statements.length === 0 ? 'no maths was read in its words' : `the maths it read is not solved (${reader.reason})`;
    return { verdict: 'unverified', detail: `the model read the words as "${translation}"; the maths engine's reader has nothing to compare it with: ${unread}`, ...solution };
  }
  if (!sameAnswer(reader.answer, translated.answer)) {
    return { verdict: 'unverified', detail: `the model read the words as "${translation}" (${translated.finalAnswer}); the maths engine's reader read ${reader.problem} (${reader.finalAnswer})`, ...solution };
  }
  return { verdict: 'agrees', reader, translated };
}

/**
 * Whether two of the engine's answers are one answer: the same kind, values equal exactly where both
 * are exact (rationals) and otherwise the same number up to floating-point noise; one unknown's roots,
 * an inequality's bound, a solution set's intervals and a worded problem's number whatever letter each names them by (a
 * translation picks its own), a system's values by name. Expressions and limits agree only when identical.
 */
export function sameAnswer(a: Answer, b: Answer): boolean {
  switch (a.kind) {
    case 'number':
      return b.kind === 'number' && sameValue(a.value, a.exact, b.value, b.exact) && (a.unit === undefined || b.unit === undefined || a.unit === b.unit);
    case 'roots':
      return b.kind === 'roots' && sameRoots(a.roots, b.roots);
    case 'assignment': {
      if (b.kind !== 'assignment') return false;
      const names = Object.keys(a.values).sort();
      return names.join() === Object.keys(b.values).sort().join() && names.every((n) => sameValue(a.values[n]!, a.exact?.[n], b.values[n]!, b.exact?.[n]));
    }
    case 'inequality':
      return b.kind === 'inequality' && a.relation === b.relation && sameValue(a.bound, a.exactBound, b.bound, b.exactBound);
    case 'interval_set':
      return b.kind === 'interval_set' && a.intervals.length === b.intervals.length && a.intervals.every((i, n) => sameEnd(i.from, b.intervals[n]!.from) && sameEnd(i.to, b.intervals[n]!.to));
    case 'no_solution':
      return b.kind === 'no_solution';
    case 'all_values':
      return b.kind === 'all_values';
    case 'truth':
      return b.kind === 'truth' && a.value === b.value;
    case 'ratio':
      return b.kind === 'ratio' && sameList(a.parts, b.parts);
    case 'point':
      return b.kind === 'point' && sameList(a.coordinates, b.coordinates);
    case 'limit':
      return b.kind === 'limit' && (typeof a.value === 'number' && typeof b.value === 'number' ? sameNumber(a.value, b.value) : a.value === b.value);
    case 'expression':
      return b.kind === 'expression' && a.expression === b.expression && a.upToConstant === b.upToConstant;
  }
}

/** Exactly where both are exact, else as doubles (a double is never taken for an exact value it merely rounds to). */
function sameValue(a: number, aExact: string | undefined, b: number, bExact: string | undefined): boolean {
  const x = aExact === undefined ? undefined : Rational.parseFraction(aExact);
  const y = bExact === undefined ? undefined : Rational.parseFraction(bExact);
  if (x !== undefined && y !== undefined) return x.equals(y);
  if (Number.isInteger(a) && Number.isInteger(b)) return a === b;
  return sameNumber(a, b);
}

/** Both unbounded, or at one value (exactly) and both open or both closed. */
function sameEnd(a: IntervalEnd | undefined, b: IntervalEnd | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.closed === b.closed && sameValue(a.value, a.exact, b.value, b.exact);
}

function sameRoots(a: readonly Complex[], b: readonly Complex[]): boolean {
  const distinct = (roots: readonly Complex[]): Complex[] => roots.filter((r, i) => roots.findIndex((s) => sameRoot(r, s)) === i);
  const [x, y] = [distinct(a), distinct(b)];
  return x.length === y.length && x.every((r) => y.some((s) => sameRoot(r, s)));
}

function sameRoot(r: Complex, s: Complex): boolean {
  return sameValue(r.re, r.exact, s.re, s.exact) && (r.im === s.im || sameNumber(r.im, s.im));
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => sameValue(v, undefined, b[i]!, undefined));
}
