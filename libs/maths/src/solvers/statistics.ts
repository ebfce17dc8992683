import { Rational } from '../core/rational.js';
import type { SolverResult, Step } from '../types.js';
import type { ProblemContext } from './context.js';
import { m } from './context.js';
import { exactWithDecimal } from './format.js';
import { exact, usesEveryNumber } from './word-support.js';

const NUMBER = '-?\\d+(?:\\.\\d+)?';
const LIST = new RegExp(`\\b(mean|average|median|mode|range)\\b\\s+(?:of\\s+)?(?:the\\s+)?(?:data|numbers|values|set|list)?\\s*:?\\s*\\{?\\s*(${NUMBER}(?:\\s*(?:,|;|and|\\s)\\s*${NUMBER})+)`);

type Measure = 'mean' | 'median' | 'mode' | 'range';

/**
 * Mean, median, mode and range of a list of numbers written in the text (every number in the
 * problem must be in the list). Exact (rationals); a list with no single mode is refused. Each answer
 * is checked by a property it must have: the deviations from the mean sum to zero, as many values lie
 * at or below the median as at or above it, no value is more frequent than the mode, and every value
 * lies within [min, min + range].
 */
export function solveStatistics(ctx: ProblemContext): SolverResult {
  const match = LIST.exec(ctx.lower);
  if (match === null) return undefined;
  const measure: Measure = match[1] === 'average' ? 'mean' : (match[1] as Measure);
  // "1,5 and 2,5": commas with no space beside other separators may be decimal commas; not guessed.
  if (/\d,\d/.test(match[2]!) && /\d(?:\s*(?:;|and)\s*|\s+|,\s+)-?\d/.test(match[2]!)) return { solved: false, inScope: true, category: 'statistics', reason: 'the list mixes separators, so its commas may be decimal commas: write it with one kind of separator' };
  const texts = match[2]!.match(new RegExp(NUMBER, 'g'))!;
  if (!usesEveryNumber(ctx.lower, texts.map((t) => Math.abs(Number(t))))) return undefined;
  const data = texts.map((t) => exact(t));
  const sorted = [...data].sort((a, b) => a.compare(b));
  const list = (xs: readonly Rational[]): string => xs.map((x) => x.toString()).join(', ');
  const steps: Step[] = [{ title: 'Write the data in order', detail: `${list(sorted)} (${data.length} values)` }];
  let result: Rational;
  switch (measure) {
    case 'mean': {
      const total = data.reduce((s, x) => s.add(x), Rational.ZERO);
      result = total.div(Rational.of(data.length));
      steps.push({ title: 'Add the values', detail: m(`${data.map((x) => x.toTex()).join(' + ')} = ${total.toTex()}`) });
      steps.push({ title: 'Divide by how many there are', detail: m(`\\frac{${total.toTex()}}{${data.length}} = ${result.toTex()}`) });
      if (!data.reduce((s, x) => s.add(x.sub(result)), Rational.ZERO).isZero) throw new Error('deviations from the mean do not sum to zero');
      break;
    }
    case 'median': {
      const middle = Math.floor(sorted.length / 2);
      result = sorted.length % 2 === 1 ? sorted[middle]! : sorted[middle - 1]!.add(sorted[middle]!).div(Rational.of(2));
      steps.push({
        title: sorted.length % 2 === 1 ? `Take the middle value (the ${middle + 1}th)` : 'Take the mean of the two middle values',
        detail: sorted.length % 2 === 1 ? `The median is ${result.toString()}.` : m(`\\frac{${sorted[middle - 1]!.toTex()} + ${sorted[middle]!.toTex()}}{2} = ${result.toTex()}`),
      });
      const below = data.filter((x) => x.compare(result) <= 0).length;
      const above = data.filter((x) => x.compare(result) >= 0).length;
      if (below * 2 < data.length || above * 2 < data.length) throw new Error('the median does not split the data in half');
      break;
    }
    case 'mode': {
      const counts = new Map<string, { value: Rational; count: number }>();
      for (const x of data) counts.set(x.toString(), { value: x, count: (counts.get(x.toString())?.count ?? 0) + 1 });
      const ranked = [...counts.values()].sort((a, b) => b.count - a.count);
      if (ranked[0]!.count === 1) return { solved: false, inScope: true, category: 'statistics', reason: 'every value appears once: the data has no mode' };
      if (ranked[1] !== undefined && ranked[1].count === ranked[0]!.count) {
        return { solved: false, inScope: true, category: 'statistics', reason: `${ranked.filter((r) => r.count === ranked[0]!.count).map((r) => r.value.toString()).join(' and ')} are equally frequent: the data has more than one mode` };
      }
      result = ranked[0]!.value;
      steps.push({ title: 'Count each value', detail: ranked.map((r) => `${r.value.toString()}: ${r.count}`).join(', ') });
      steps.push({ title: 'Take the most frequent value', detail: `${result.toString()} appears ${ranked[0]!.count} times, more than any other value.` });
      if (data.filter((x) => x.equals(result)).length !== ranked[0]!.count) throw new Error('the mode count does not match the data');
      break;
    }
    case 'range': {
      result = sorted.at(-1)!.sub(sorted[0]!);
      steps.push({ title: 'Subtract the smallest value from the largest', detail: m(`${sorted.at(-1)!.toTex()} - ${sorted[0]!.toTex()} = ${result.toTex()}`) });
      if (data.some((x) => x.compare(sorted[0]!) < 0 || x.compare(sorted[0]!.add(result)) > 0)) throw new Error('a value lies outside the range');
      break;
    }
  }
  return {
    solved: true,
    category: 'statistics',
    intent: 'evaluate',
    problem: `the ${measure} of ${list(data)}`,
    steps,
    finalAnswer: exactWithDecimal(result),
    answer: { kind: 'number', value: result.toNumber(), exact: result.toString() },
    verification: { mean: 'the deviations from the mean sum to zero', median: 'at least half the values lie at or below it and at least half at or above', mode: 'no other value is as frequent', range: 'every value lies between the minimum and the minimum plus the range' }[measure],
  };
}
