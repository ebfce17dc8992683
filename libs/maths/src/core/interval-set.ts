import type { Answer, Interval, RelationOp } from '../types.js';
import { Rational } from './rational.js';

/** An end of an exact interval: where it is, and whether it belongs to the set. */
export interface ExactEnd {
  readonly at: Rational;
  readonly closed: boolean;
}

/** An interval of the real line with exact ends; an absent end is unbounded. */
export interface ExactInterval {
  readonly from?: ExactEnd;
  readonly to?: ExactEnd;
}

export const WHOLE_LINE: ExactInterval = {};

/** Whether an interval holds no value: its ends crossed, or met with one of them open. */
export function isEmptyInterval(interval: ExactInterval): boolean {
  const { from, to } = interval;
  if (from === undefined || to === undefined) return false;
  const order = from.at.compare(to.at);
  return order > 0 || (order === 0 && !(from.closed && to.closed));
}

/** The values two intervals share (possibly none: see `isEmptyInterval`). */
export function intersect(a: ExactInterval, b: ExactInterval): ExactInterval {
  const from = tighter(a.from, b.from, 1);
  const to = tighter(a.to, b.to, -1);
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

/** Of two lower ends (`direction` 1) the greater, of two upper ends (−1) the smaller; at one value the open end excludes more. */
function tighter(a: ExactEnd | undefined, b: ExactEnd | undefined, direction: 1 | -1): ExactEnd | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const order = a.at.compare(b.at) * direction;
  if (order !== 0) return order > 0 ? a : b;
  return { at: a.at, closed: a.closed && b.closed };
}

/** Of two upper ends the greater (absent is +∞); at one value the closed end reaches further. */
function further(a: ExactEnd | undefined, b: ExactEnd | undefined): ExactEnd | undefined {
  if (a === undefined || b === undefined) return undefined;
  const order = a.at.compare(b.at);
  if (order !== 0) return order > 0 ? a : b;
  return { at: a.at, closed: a.closed || b.closed };
}

/** Lower ends in increasing order: −∞ first; at one value the closed end first. */
function compareStarts(a: ExactInterval, b: ExactInterval): number {
  if (a.from === undefined || b.from === undefined) return a.from === undefined ? (b.from === undefined ? 0 : -1) : 1;
  return a.from.at.compare(b.from.at) || (a.from.closed === b.from.closed ? 0 : a.from.closed ? -1 : 1);
}

/** The union of intervals as disjoint intervals in increasing order, no two touching ([1, 3) ∪ [3, 5] is [1, 5]). */
export function unionOf(intervals: readonly ExactInterval[]): ExactInterval[] {
  const sorted = intervals.filter((i) => !isEmptyInterval(i)).sort(compareStarts);
  const out: ExactInterval[] = [];
  for (const next of sorted) {
    const last = out.at(-1);
    if (last !== undefined && meets(last, next)) out[out.length - 1] = { ...(last.from === undefined ? {} : { from: last.from }), ...withEnd(further(last.to, next.to)) };
    else out.push(next);
  }
  return out;
}

const withEnd = (to: ExactEnd | undefined): { to?: ExactEnd } => (to === undefined ? {} : { to });

/** Whether `next` (starting no earlier than `last`) overlaps `last` or touches it at a value one of them holds. */
function meets(last: ExactInterval, next: ExactInterval): boolean {
  if (last.to === undefined || next.from === undefined) return true;
  const order = next.from.at.compare(last.to.at);
  return order < 0 || (order === 0 && (last.to.closed || next.from.closed));
}

export function contains(set: readonly ExactInterval[], value: Rational): boolean {
  return set.some(({ from, to }) => (from === undefined || from.at.compare(value) < (from.closed ? 1 : 0)) && (to === undefined || value.compare(to.at) < (to.closed ? 1 : 0)));
}

/** Whether `value op 0` holds, exactly. */
export function holds(value: Rational, op: RelationOp): boolean {
  const sign = value.sign;
  switch (op) {
    case '=':
      return sign === 0;
    case '<':
      return sign < 0;
    case '<=':
      return sign <= 0;
    case '>':
      return sign > 0;
    case '>=':
      return sign >= 0;
  }
}

/** The values of x where `slope·x + constant op 0`: the whole line, none (an empty interval), one value or a half-line. */
export function linearSolution(slope: Rational, constant: Rational, op: RelationOp): ExactInterval {
  if (slope.isZero) return holds(constant, op) ? WHOLE_LINE : { from: { at: Rational.ZERO, closed: false }, to: { at: Rational.ZERO, closed: false } };
  const at = constant.neg().div(slope);
  if (op === '=') return { from: { at, closed: true }, to: { at, closed: true } };
  const closed = op === '<=' || op === '>=';
  const below = (op === '<' || op === '<=') === slope.sign > 0;
  return below ? { to: { at, closed } } : { from: { at, closed } };
}

const TEXT_SIGN = { open: '<', closed: '≤' } as const;
const TEX_SIGN = { open: '<', closed: '\\le' } as const;

function onePart({ from, to }: ExactInterval, variable: string, tex: boolean): string {
  const sign = tex ? TEX_SIGN : TEXT_SIGN;
  const write = (r: Rational): string => (tex ? r.toTex() : r.toString());
  if (from !== undefined && to !== undefined && from.at.equals(to.at)) return `${variable} = ${write(from.at)}`;
  const greater = tex ? { open: '>', closed: '\\ge' } : { open: '>', closed: '≥' };
  if (from === undefined) return to === undefined ? (tex ? `${variable} \\in \\mathbb{R}` : 'every real number') : `${variable} ${sign[to.closed ? 'closed' : 'open']} ${write(to.at)}`;
  if (to === undefined) return `${variable} ${greater[from.closed ? 'closed' : 'open']} ${write(from.at)}`;
  return `${write(from.at)} ${sign[from.closed ? 'closed' : 'open']} ${variable} ${sign[to.closed ? 'closed' : 'open']} ${write(to.at)}`;
}

/** The set as a student writes it: "-2 < x < 8", "x ≤ -2 or x ≥ 1", "x = 3" (`tex`: the same in LaTeX). */
export function describeSet(set: readonly ExactInterval[], variable: string, tex = false): string {
  return set.map((i) => onePart(i, variable, tex)).join(tex ? ' \\text{ or } ' : ' or ');
}

/** The set in interval notation, LaTeX: "(-2, 8)", "(-\infty, -2] \cup [1, \infty)", "\{3\}". */
export function intervalNotationTex(set: readonly ExactInterval[]): string {
  if (set.length === 0) return '\\varnothing';
  return set
    .map(({ from, to }) => {
      if (from !== undefined && to !== undefined && from.at.equals(to.at)) return `\\{${from.at.toTex()}\\}`;
      const left = from === undefined ? '(-\\infty' : `${from.closed ? '[' : '('}${from.at.toTex()}`;
      const right = to === undefined ? '\\infty)' : `${to.at.toTex()}${to.closed ? ']' : ')'}`;
      return `${left}, ${right}`;
    })
    .join(' \\cup ');
}

/**
 * The structured answer a solution set gives: none, every value, the values themselves when the set is
 * finite and `pointsAsRoots` (an equation's roots), else the intervals.
 */
export function setAnswer(set: readonly ExactInterval[], variable: string, pointsAsRoots: boolean): Answer {
  if (set.length === 0) return { kind: 'no_solution' };
  const [first] = set;
  if (set.length === 1 && first!.from === undefined && first!.to === undefined) return { kind: 'all_values', variable };
  const points = set.map((i) => (i.from !== undefined && i.to !== undefined && i.from.at.equals(i.to.at) ? i.from.at : undefined));
  if (pointsAsRoots && points.every((p) => p !== undefined)) {
    return { kind: 'roots', variable, roots: points.sort((a, b) => b.compare(a)).map((p) => ({ re: p.toNumber(), im: 0, exact: p.toString() })) };
  }
  const end = (e: ExactEnd | undefined) => (e === undefined ? undefined : { value: e.at.toNumber(), exact: e.at.toString(), closed: e.closed });
  const intervals: Interval[] = set.map(({ from, to }) => {
    const [f, t] = [end(from), end(to)];
    return { ...(f === undefined ? {} : { from: f }), ...(t === undefined ? {} : { to: t }) };
  });
  return { kind: 'interval_set', variable, intervals };
}
