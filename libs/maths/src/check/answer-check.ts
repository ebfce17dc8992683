import { type MathNode } from 'mathjs';
import { evaluatePrecisely, magnitudeOfTerms, mj } from '../core/mathjs.js';
import { DEFAULT_MATHS_BUDGET, type MathsBudget } from '../core/budget.js';
import { pastExactRange, unheldNumeralIn } from '../core/exact-range.js';
import { Rational } from '../core/rational.js';
import { largestMagnitude, sameNumber } from '../core/same-number.js';
import { solveProblem } from '../engine.js';
import { readMaths } from '../text/reading.js';
import type { Answer, EngineSolution } from '../types.js';
import { readIntervals, sameIntervals } from './interval-reading.js';
import { substituteRoots } from './substitution-check.js';

export type AnswerCheck =
  | { readonly verdict: 'agrees'; readonly engine: EngineSolution }
  | { readonly verdict: 'disagrees'; readonly detail: string }
  /** Out of the engine's scope, but every claimed root satisfies the equation (none is wrong; some may be missing). */
  | { readonly verdict: 'substituted'; readonly detail: string }
  /**
   * The engine cannot solve the problem, or cannot read the answer: no verdict. `unread`: the deterministic
   * reader read no maths in the problem's words (another language, wording it does not read), so whatever
   * maths the answer came from is another reader's translation, unverified.
   */
  | { readonly verdict: 'unchecked'; readonly reason: string; readonly unread?: string };

/**
 * Checks another solver's final answer (a model's) against the engine's own, where the engine can
 * solve the problem and read the answer: roots and assignments as sets of values, numbers within
 * the precision the answer was written with, expressions by evaluation at sample points (up to a
 * constant for antiderivatives), inequalities by relation and bound, solution sets interval by interval. An answer that writes a number
 * past 2^53 gets no verdict: compared as doubles, it would agree with its neighbours.
 */
export function checkFinalAnswer(problem: string, finalAnswer: string, budget: MathsBudget = DEFAULT_MATHS_BUDGET): AnswerCheck {
  const text = plainText(finalAnswer);
  const unheld = unheldNumeralIn(text);
  if (unheld !== undefined) return { verdict: 'unchecked', reason: pastExactRange(`the number ${unheld} in the final answer`) };
  const engine = solveProblem(problem, budget);
  if (!engine.solved) {
    const verdict = substitutionOnly(problem, text, engine.reason);
    if (verdict.verdict !== 'unchecked') return verdict;
    const unread = unreadWords(problem);
    return unread === undefined ? verdict : { ...verdict, unread };
  }
  const outcome = compare(engine.answer, text);
  if (outcome === undefined) return { verdict: 'unchecked', reason: 'the maths engine could not read the final answer' };
  return outcome === true ? { verdict: 'agrees', engine } : { verdict: 'disagrees', detail: `the maths engine's answer is ${engine.finalAnswer}; the final answer given was ${finalAnswer.trim()}` };
}

/**
 * Why the deterministic reader read no maths in a problem's words, or undefined when it read some: the
 * reading was refused, or found neither a statement nor a worded sentence ("Cinq de plus que le double
 * d'un nombre font dix-sept" has no maths it reads; a word problem its templates read has none either).
 */
function unreadWords(problem: string): string | undefined {
  const reading = readMaths(problem);
  if ('refused' in reading) return reading.refused;
  return reading.read.worded === undefined && reading.read.statements.length === 0 ? 'no maths was read in its words' : undefined;
}

/** Out of the engine's scope: the roots of a one-unknown equation can still be substituted. */
function substitutionOnly(problem: string, text: string, reason: string): AnswerCheck {
  const variable = /\b([a-z])\s*[=≈]/.exec(text)?.[1];
  const values = variable === undefined ? undefined : valuesOf(text, variable);
  if (variable === undefined || values === undefined || values.some((v) => v.im !== 0)) return { verdict: 'unchecked', reason };
  const verdict = substituteRoots(
    problem,
    variable,
    values.map((v) => ({ value: v.re, tolerance: v.tolerance })),
  );
  if (verdict === undefined) return { verdict: 'unchecked', reason };
  return verdict.satisfied ? { verdict: 'substituted', detail: verdict.detail } : { verdict: 'disagrees', detail: verdict.detail };
}

/** LaTeX and prose reduced to mathjs-readable text. */
function plainText(answer: string): string {
  let t = answer
    .replace(/\\[()[\]]|\$/g, ' ')
    .replace(/\\left|\\right|\\,|\\;|\\!|\\quad/g, ' ')
    .replace(/\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}/g, '(($1)/($2))')
    .replace(/\\sqrt\{([^{}]*)\}/g, 'sqrt($1)')
    .replace(/\\pm/g, '±')
    .replace(/\\cdot|\\times/g, '*')
    .replace(/\\le(q)?\b/g, '<=')
    .replace(/\\ge(q)?\b/g, '>=')
    .replace(/\\infty/g, '∞')
    .replace(/\\pi/g, 'pi')
    .replace(/\\ln/g, 'ln')
    .replace(/\\(sin|cos|tan|exp|log)/g, '$1')
    .replace(/\^\{([^{}]*)\}/g, '^($1)')
    .replace(/[{}]/g, ' ')
    .replace(/≤/g, '<=')
    .replace(/≥/g, '>=')
    .replace(/−/g, '-')
    .replace(/π/g, 'pi')
    .replace(/√\s*\(/g, 'sqrt(')
    .replace(/√\s*([0-9.]+)/g, 'sqrt($1)');
  t = t.replace(/\bln\s*\(/g, 'log(');
  return t.replace(/\s+/g, ' ').trim();
}

function compare(expected: Answer, text: string): boolean | undefined {
  switch (expected.kind) {
    case 'roots': {
      if (/no (real )?solution/i.test(text) && expected.roots.every((r) => r.im !== 0)) return /complex|i\b/.test(text) ? undefined : true;
      // A worded problem's answer in the asker's terms ("the number is 6") names its unknown.
      const answer = text.replace(/\bthe number is\b/gi, `${expected.variable} =`);
      // Roots given for another unknown ("x = 3" to "solve for k") answer another question.
      if ([...answer.matchAll(/(?<![A-Za-z0-9])([a-z])\s*(?:=|≈)/g)].some((m) => m[1] !== expected.variable)) return false;
      const listed = valuesOf(answer, expected.variable);
      if (listed === undefined) return undefined;
      // A double root may be written once or twice.
      const values = listed.filter((v, i) => listed.findIndex((w) => near(w.re, v.re, 0) && near(w.im, v.im, 0)) === i);
      const wanted = expected.roots.filter((r, i) => expected.roots.findIndex((s) => near(s.re, r.re, 0) && near(s.im, r.im, 0)) === i);
      if (values.length !== wanted.length) return false;
      return wanted.every((r) => values.some((v) => (r.exact !== undefined && v.im === 0 ? agrees(v.written, r.exact, v.re, r.re, v.tolerance) : near(v.re, r.re, v.tolerance, v.scale) && near(v.im, r.im, v.tolerance, v.scale))));
    }
    case 'number': {
      const numbers = [...text.replace(/(\d),(\d{3})/g, '$1$2').matchAll(/-?\d+(?:\.\d+)?(?:\s*\/\s*\d+)?/g)];
      if (numbers.length === 0) return undefined;
      // The last number of "… = 60" is the result; "x ≈ 78.54" too.
      const last = numbers.at(-1)![0];
      const [value, tolerance] = readNumber(last.replace(/\s+/g, ''));
      if (/π|pi/.test(text) && !/≈|=\s*-?\d+\.\d/.test(text)) {
        // Units and words dropped, π kept: "25π cm²" is 25·π.
        const withPi = evaluate(
          text
            .replace(/.*=/, '')
            .replace(/pi|π/gi, 'π')
            .replace(/[a-z²³$£€%]+/gi, ' ')
            .replace(/π/g, ' pi '),
        );
        if (withPi !== undefined) return near(withPi.re, expected.value, 0, withPi.scale);
      }
      return agrees(last.replace(/\s+/g, ''), expected.exact, value, expected.value, tolerance);
    }
    case 'assignment': {
      for (const [name, value] of Object.entries(expected.values)) {
        const match = new RegExp(`\\b${name}\\s*=\\s*([^,;]+?)(?=,|;|\\band\\b|$)`).exec(text);
        if (match === null) return undefined;
        const got = evaluate(match[1]!);
        if (got === undefined) return undefined;
        if (!agrees(match[1]!, expected.exact?.[name], got.re, value, toleranceOf(match[1]!), got.scale)) return false;
      }
      return true;
    }
    case 'inequality': {
      const match = new RegExp(`\\b${expected.variable}\\s*(<=|>=|<|>)\\s*(.+)$`).exec(text);
      if (match === null) return undefined;
      const bound = evaluate(match[2]!.replace(/\(.*\)$/, ''));
      if (bound === undefined) return undefined;
      return match[1] === expected.relation && agrees(match[2]!.replace(/\(.*\)$/, ''), expected.exactBound, bound.re, expected.bound, toleranceOf(match[2]!), bound.scale);
    }
    case 'interval_set': {
      if (/no (real )?solution|∅|empty|all real|every real/i.test(text)) return false;
      const written = readIntervals(text, expected.variable, (v) => evaluate(v)?.re);
      if (written === undefined) return undefined;
      return sameIntervals(expected.intervals, written, (w, e) => agrees(w.written, e.exact, w.value, e.value, toleranceOf(w.written)));
    }
    case 'expression': {
      // A formula for another letter ("u = v − at" to "make t the subject") answers another question.
      const named = /^\s*([A-Za-z])\s*=/.exec(text)?.[1];
      if (expected.subject !== undefined && named !== undefined && named !== expected.subject) return false;
      const rhs = text.replace(/^.*=/, '').replace(/\+\s*C\b/, '').replace(/\(\s*[a-z]\s*≠.*\)$/, '');
      let node: MathNode;
      let reference: MathNode;
      try {
        node = mj.parse(rhs.replace(/\bln\(/g, 'log('));
        reference = mj.parse(expected.expression);
      } catch {
        return undefined;
      }
      const pairs: [number, number][] = [];
      for (const s of [0.31, 0.77, 1.29, 1.83, 2.41]) {
        const scope = Object.fromEntries(expected.variables.map((v, i) => [v, s + i * 0.53]));
        try {
          const a = node.evaluate({ ...scope }) as unknown;
          const b = reference.evaluate({ ...scope }) as unknown;
          if (typeof a !== 'number' || typeof b !== 'number' || !Number.isFinite(a) || !Number.isFinite(b)) continue;
          pairs.push([a, b]);
        } catch {
          return undefined;
        }
      }
      if (pairs.length < 3) return undefined;
      // Up to a constant: each difference is the first one. The noise of a difference is that of the
      // values it came from, so it is measured against the largest of them.
      const base = expected.upToConstant ? pairs[0]![0] - pairs[0]![1] : 0;
      const scale = largestMagnitude(pairs.flat());
      return pairs.every(([a, b]) => sameNumber(a - b, base, { relative: 1e-6, scale }));
    }
    case 'limit': {
      if (/does not exist|dne|undefined/i.test(text)) return expected.value === 'does_not_exist';
      if (/∞|infinity/i.test(text)) return /-\s*(∞|infinity)/i.test(text) ? expected.value === '-infinity' : expected.value === 'infinity';
      const got = evaluate(text.replace(/^.*=/, ''));
      if (got === undefined) return undefined;
      return typeof expected.value === 'number' && near(got.re, expected.value, toleranceOf(text), got.scale);
    }
    case 'point':
    case 'ratio': {
      const parts = expected.kind === 'point' ? expected.coordinates : expected.parts;
      const numbers = [...text.matchAll(/-?\d+(?:\.\d+)?(?:\/\d+)?/g)].map((x) => readNumber(x[0]));
      if (numbers.length !== parts.length) return numbers.length === 0 ? undefined : false;
      return numbers.every(([v, tol], i) => near(v, parts[i]!, tol));
    }
    case 'no_solution':
      return /no solution|no real|∅|empty/i.test(text) ? true : /[a-z]\s*=/.test(text) ? false : undefined;
    case 'all_values':
      return /all real|every real|infinitely many|any real|all x|identity/i.test(text) ? true : /[a-z]\s*=\s*-?\d/.test(text) ? false : undefined;
    case 'truth':
      return /\btrue\b/i.test(text) ? expected.value : /\bfalse\b/i.test(text) ? !expected.value : undefined;
  }
}

interface Value {
  readonly re: number;
  readonly im: number;
  readonly tolerance: number;
  /** The size of the terms the written value is computed from (its floating-point noise is relative to them). */
  readonly scale: number;
  /** The value as written ("3002399751580328.7", "9007199254740986/3"), for an exact comparison. */
  readonly written: string;
}

/** The values in "x = 2 or x = -3", "x = (-1 ± √5)/2", "x = 1 ± 2i", "x ≈ 0.618, x ≈ -1.618". */
function valuesOf(text: string, variable: string): Value[] | undefined {
  const parts = text
    .replace(/\(x ≈[^)]*\)|\(complex[^)]*\)/g, '')
    .split(/\bor\b|,|;|\band\b/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const out: Value[] = [];
  for (const part of parts) {
    const rhs = part.includes('=') || part.includes('≈') ? part.split(/=|≈/).at(-1)!.trim() : part.replace(new RegExp(`^${variable}\\s*`), '');
    if (rhs === '') continue;
    const variants = rhs.includes('±') ? [rhs.replace('±', '+'), rhs.replace('±', '-')] : [rhs];
    for (const v of variants) {
      const got = evaluate(v);
      if (got === undefined) return undefined;
      out.push({ ...got, tolerance: toleranceOf(v), written: v });
    }
  }
  return out.length === 0 ? undefined : out;
}

/**
 * A written value: a real one to 64 digits (so the cancellation in "500000 − √249999999999" costs nothing),
 * a complex one in doubles, with the size of the terms it was computed from (`scale`: its noise is relative to them).
 */
function evaluate(text: string): { re: number; im: number; scale: number } | undefined {
  const mathjsText = text.replace(/(\d)\s*i\b/g, '$1*i').replace(/\bi\s*sqrt/g, 'i*sqrt').replace(/(\d)\s*sqrt/g, '$1*sqrt');
  const real = evaluatePrecisely(mathjsText);
  if (real !== undefined) return { re: real, im: 0, scale: 0 };
  try {
    const node = mj.parse(mathjsText);
    const value: unknown = node.evaluate();
    const scale = magnitudeOfTerms(node) ?? 0;
    if (typeof value === 'number') return Number.isFinite(value) ? { re: value, im: 0, scale } : undefined;
    if (mj.isComplex(value)) return { re: value.re, im: value.im, scale };
    if (mj.isFraction(value)) return { re: mj.number(value), im: 0, scale };
    return undefined;
  } catch {
    return undefined;
  }
}

/** Half a unit in the last decimal place written; none for exact forms (they are compared to floating-point noise only). */
function toleranceOf(text: string): number {
  const decimals = [...text.matchAll(/\d+\.(\d+)/g)].map((x) => x[1]!.length);
  if (decimals.length === 0) return 0;
  return 0.51 * 10 ** -Math.min(...decimals);
}

function readNumber(text: string): [number, number] {
  if (text.includes('/')) {
    const [a, b] = text.split('/').map(Number);
    return [a! / b!, 0];
  }
  return [Number(text), toleranceOf(text)];
}

/**
 * A written value against the engine's, exactly where the engine's is exact (a rational) and the written
 * one a plain number or fraction: a fraction or whole number must equal it, a decimal must lie within
 * half a unit of its last place (so 3002399751580328.5 is not 9007199254740986/3, though the two are
 * one double). Otherwise as doubles, by `near`.
 */
function agrees(written: string, exact: string | undefined, got: number, expected: number, tolerance: number, scale = 0): boolean {
  const engine = exact === undefined ? undefined : Rational.parseFraction(exact);
  const given = engine === undefined ? undefined : writtenRational(written);
  if (engine === undefined || given === undefined) return near(got, expected, tolerance, scale);
  const places = /\.(\d+)/.exec(written)?.[1]?.length;
  if (places === undefined) return given.equals(engine);
  return given.sub(engine).abs().compare(Rational.of(1n, 2n * 10n ** BigInt(places))) <= 0;
}

/** "-3.25", "9007199254740986/3", "((1)/(3))", "-(7/2)" exactly; undefined for anything else (roots, π, products). */
function writtenRational(text: string): Rational | undefined {
  const bare = text.replace(/[\s()]/g, '');
  const match = /^(-?)(\d+(?:\.\d+)?)(?:\/(\d+(?:\.\d+)?))?$/.exec(bare);
  if (match === null) return undefined;
  const [, sign, top = '', bottom] = match;
  const numerator = Rational.parse(top);
  const denominator = bottom === undefined ? Rational.ONE : Rational.parse(bottom);
  if (numerator === undefined || denominator === undefined || denominator.isZero) return undefined;
  const value = numerator.div(denominator);
  return sign === '-' ? value.neg() : value;
}

/**
 * Within the precision written (`tolerance`, half a unit in the last written place), or within the
 * engine's floating-point noise relative to the values' size (never an absolute allowance, so
 * 0.000001000007614 is not 0.000001000000000001), and never as wide as half a unit, so whole numbers
 * that differ by one never agree (123456789001 is not 123456789000): two whole numbers agree only when equal.
 */
function near(a: number, b: number, tolerance: number, scale = 0): boolean {
  if (Number.isInteger(a) && Number.isInteger(b) && tolerance < 0.5) return a === b;
  return sameNumber(a, b, { written: tolerance, scale }) && Math.abs(a - b) <= Math.max(tolerance, 0.25);
}
