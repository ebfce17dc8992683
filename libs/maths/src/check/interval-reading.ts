import type { Interval, IntervalEnd } from '../types.js';

/** An end of an interval as a final answer writes it: the number as written, its value, and whether the end is included. */
export interface WrittenEnd {
  readonly written: string;
  readonly value: number;
  readonly closed: boolean;
}

export interface WrittenInterval {
  readonly from?: WrittenEnd;
  readonly to?: WrittenEnd;
}

/** How a caller reads a written number's value (LaTeX already reduced to plain text). */
export type ValueOf = (written: string) => number | undefined;

const INFINITY = String.raw`(?:∞|inf(?:inity)?)`;
const END = String.raw`([^,()[\]]+?)`;
const NOTATION = new RegExp(String.raw`([([])\s*${END}\s*,\s*${END}\s*([)\]])|\{\s*([^{},]+?)\s*\}`, 'g');

/**
 * A solution set written as a final answer, in `variable`: inequalities joined by "or" ("x < -2 or
 * x > 8", "-2 < x <= 8", "x = 3 or 5 <= x <= 7", "x > -2 and x < 8"), or interval notation joined by ∪
 * ("x ∈ (-∞, -2] ∪ [1, ∞)", "{3}"). Undefined when the text is not wholly one of these, or its intervals
 * overlap or touch (a set written so is not compared: its reading would be a guess).
 */
export function readIntervals(text: string, variable: string, valueOf: ValueOf): WrittenInterval[] | undefined {
  const plain = text.replace(/\s+/g, ' ').trim();
  const intervals = /[<>=]/.test(plain) ? inequalities(plain, variable, valueOf) : notation(plain, variable, valueOf);
  if (intervals === undefined || intervals.length === 0) return undefined;
  const sorted = [...intervals].sort((a, b) => (a.from?.value ?? -Infinity) - (b.from?.value ?? -Infinity));
  for (let i = 1; i < sorted.length; i++) {
    const [last, next] = [sorted[i - 1]!, sorted[i]!];
    if (last.to === undefined || next.from === undefined) return undefined;
    const order = next.from.value - last.to.value;
    if (order < 0 || (order === 0 && (last.to.closed || next.from.closed))) return undefined;
  }
  return sorted;
}

function notation(text: string, variable: string, valueOf: ValueOf): WrittenInterval[] | undefined {
  const rest = text.replace(NOTATION, ' ').replace(new RegExp(String.raw`^\s*${variable}\s*(?:∈|\bin\b)`), ' ').replace(/∪|\bU\b|\bor\b/g, ' ');
  if (rest.trim() !== '') return undefined;
  const out: WrittenInterval[] = [];
  for (const match of text.matchAll(NOTATION)) {
    const [, open, low, high, close, point] = match;
    if (point !== undefined) {
      const end = endOf(point, true, valueOf);
      if (end === undefined) return undefined;
      out.push({ from: end, to: end });
      continue;
    }
    const lowInfinite = new RegExp(String.raw`^-\s*${INFINITY}$`, 'i').test(low!.trim());
    const highInfinite = new RegExp(String.raw`^\+?\s*${INFINITY}$`, 'i').test(high!.trim());
    const from = lowInfinite ? undefined : endOf(low!, open === '[', valueOf);
    const to = highInfinite ? undefined : endOf(high!, close === ']', valueOf);
    if ((!lowInfinite && from === undefined) || (!highInfinite && to === undefined)) return undefined;
    out.push({ ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) });
  }
  return out;
}

function endOf(written: string, closed: boolean, valueOf: ValueOf): WrittenEnd | undefined {
  const value = valueOf(written.trim());
  return value === undefined || !Number.isFinite(value) ? undefined : { written: written.trim(), value, closed };
}

const SIGN = String.raw`(<=|>=|<|>|=)`;

function inequalities(text: string, variable: string, valueOf: ValueOf): WrittenInterval[] | undefined {
  const out: WrittenInterval[] = [];
  for (const part of text.split(/\bor\b|∪/)) {
    let interval: WrittenInterval = {};
    for (const clause of part.split(/\band\b/)) {
      const bounds = clauseBounds(clause.trim(), variable, valueOf);
      if (bounds === undefined) return undefined;
      // "x > -2 and x < 8": each side bounded once.
      if ((bounds.from !== undefined && interval.from !== undefined) || (bounds.to !== undefined && interval.to !== undefined)) return undefined;
      interval = { ...interval, ...bounds };
    }
    if (interval.from === undefined && interval.to === undefined) return undefined;
    out.push(interval);
  }
  return out;
}

/** One clause: "x < 8", "8 > x", "-2 < x <= 8", "x = 3". */
function clauseBounds(clause: string, variable: string, valueOf: ValueOf): WrittenInterval | undefined {
  const chain = new RegExp(String.raw`^(.+?)\s*${SIGN}\s*${variable}\s*${SIGN}\s*(.+)$`).exec(clause);
  if (chain !== null) {
    const [, a, first, second, b] = chain;
    const rising = first!.startsWith('<') && second!.startsWith('<');
    const falling = first!.startsWith('>') && second!.startsWith('>');
    if (!rising && !falling) return undefined;
    const [low, lowSign, high, highSign] = rising ? [a!, first!, b!, second!] : [b!, second!, a!, first!];
    const from = endOf(low, lowSign.endsWith('='), valueOf);
    const to = endOf(high, highSign.endsWith('='), valueOf);
    return from === undefined || to === undefined || from.value >= to.value ? undefined : { from, to };
  }
  const right = new RegExp(String.raw`^${variable}\s*${SIGN}\s*(.+)$`).exec(clause);
  const left = new RegExp(String.raw`^(.+?)\s*${SIGN}\s*${variable}$`).exec(clause);
  if (right === null && left === null) return undefined;
  const [sign, written] = right !== null ? [right[1]!, right[2]!] : [mirrored(left![2]!), left![1]!];
  const end = endOf(written, sign !== '<' && sign !== '>', valueOf);
  if (end === undefined) return undefined;
  if (sign === '=') return { from: end, to: end };
  return sign.startsWith('<') ? { to: end } : { from: end };
}

/** "5 < x" says x > 5. */
function mirrored(sign: string): string {
  return sign.replace(/[<>]/, (s) => (s === '<' ? '>' : '<'));
}

/**
 * A written set against the engine's: the same number of intervals, each end unbounded in both or
 * included alike and at one value (`sameValue`: the caller's exact-where-exact comparison).
 */
export function sameIntervals(expected: readonly Interval[], written: readonly WrittenInterval[], sameValue: (written: WrittenEnd, expected: IntervalEnd) => boolean): boolean {
  const sameEnd = (w: WrittenEnd | undefined, e: IntervalEnd | undefined): boolean => (w === undefined || e === undefined ? w === e : w.closed === e.closed && sameValue(w, e));
  return expected.length === written.length && expected.every((e, i) => sameEnd(written[i]!.from, e.from) && sameEnd(written[i]!.to, e.to));
}
