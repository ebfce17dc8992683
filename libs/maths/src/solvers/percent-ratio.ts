import { Rational } from '../core/rational.js';
import type { EngineSolution, SolverResult, Step } from '../types.js';
import type { ProblemContext } from './context.js';
import { m } from './context.js';
import { exactWithDecimal } from './format.js';
import { exact, usesEveryNumber } from './word-support.js';

const N = '(\\d+(?:\\.\\d+)?)';
const PCT = `${N}\\s*(?:%|percent|per cent)`;

/** Percentages (of, what percent, increase/decrease, percentage change) and ratios (share, simplify). */
export function solvePercentOrRatio(ctx: ProblemContext): SolverResult {
  const t = ctx.lower.replace(/[$£€]/g, '');
  let match: RegExpExecArray | null;
  if ((match = new RegExp(`\\b(increase|decrease|raise|reduce)\\s+${N}\\s+by\\s+${PCT}`).exec(t)) !== null) {
    const [, verb, baseText, pctText] = match as unknown as [string, string, string, string];
    if (!usesEveryNumber(t, [Number(baseText), Number(pctText)])) return undefined;
    const up = verb === 'increase' || verb === 'raise';
    const base = exact(baseText);
    const rate = exact(pctText).div(Rational.of(100));
    const factor = up ? Rational.ONE.add(rate) : Rational.ONE.sub(rate);
    const result = base.mul(factor);
    return done(ctx, `${verb} ${baseText} by ${pctText}%`, [
      { title: 'Write the multiplier', detail: `${up ? 'Increasing' : 'Decreasing'} by ${pctText}% multiplies by ${m(`1 ${up ? '+' : '-'} ${rate.toTex()} = ${factor.toTex()}`)}.` },
      { title: 'Multiply', detail: m(`${base.toTex()} \\times ${factor.toTex()} = ${result.toTex()}`) },
    ], result);
  }
  if ((match = new RegExp(`${PCT}\\s+of\\s+${N}`).exec(t)) !== null) {
    const [, pctText, baseText] = match as unknown as [string, string, string];
    if (!usesEveryNumber(t, [Number(pctText), Number(baseText)])) return undefined;
    const result = exact(pctText).div(Rational.of(100)).mul(exact(baseText));
    return done(ctx, `${pctText}% of ${baseText}`, [
      { title: 'Write the percentage as a fraction', detail: m(`${pctText}\\% = \\frac{${exact(pctText).toTex()}}{100}`) },
      { title: 'Multiply', detail: m(`\\frac{${exact(pctText).toTex()}}{100} \\times ${exact(baseText).toTex()} = ${result.toTex()}`) },
    ], result);
  }
  if ((match = new RegExp(`(?:what (?:percent|percentage)(?: of ${N})? is ${N}(?: of ${N})?|${N} is what (?:percent|percentage) of ${N}|${N} as a percentage of ${N})`).exec(t)) !== null) {
    const nums = match.slice(1).filter((x): x is string => x !== undefined);
    if (nums.length !== 2) return undefined;
    // "what percent of B is A" names the whole first; the other phrasings name the part first.
    const [part, whole] = new RegExp(`what (?:percent|percentage) of ${N} is ${N}`).test(t) ? [nums[1]!, nums[0]!] : [nums[0]!, nums[1]!];
    if (!usesEveryNumber(t, [Number(part), Number(whole)]) || exact(whole).isZero) return undefined;
    const result = exact(part).div(exact(whole)).mul(Rational.of(100));
    return done(ctx, `${part} as a percentage of ${whole}`, [
      { title: 'Divide the part by the whole', detail: m(`\\frac{${exact(part).toTex()}}{${exact(whole).toTex()}} = ${exact(part).div(exact(whole)).toTex()}`) },
      { title: 'Multiply by 100', detail: m(`${exact(part).div(exact(whole)).toTex()} \\times 100 = ${result.toTex()}\\%`) },
    ], result, '%');
  }
  if ((match = new RegExp(`from ${N} to ${N}`).exec(t)) !== null && /percent(age)? (increase|decrease|change)|by what percent/.test(t)) {
    const [, fromText, toText] = match as unknown as [string, string, string];
    if (!usesEveryNumber(t, [Number(fromText), Number(toText)]) || exact(fromText).isZero) return undefined;
    const change = exact(toText).sub(exact(fromText));
    const result = change.div(exact(fromText)).mul(Rational.of(100));
    return done(ctx, `percentage change from ${fromText} to ${toText}`, [
      { title: 'Find the change', detail: m(`${exact(toText).toTex()} - ${exact(fromText).toTex()} = ${change.toTex()}`) },
      { title: 'Divide by the original value and multiply by 100', detail: m(`\\frac{${change.toTex()}}{${exact(fromText).toTex()}} \\times 100 = ${result.toTex()}\\%`) },
    ], result, '%', result.sign >= 0 ? ' (an increase)' : ' (a decrease)');
  }
  if ((match = new RegExp(`(?:divide|share|split)\\s+${N}\\s+(?:\\w+\\s+){0,3}in the ratio\\s+(\\d+(?:\\s*:\\s*\\d+)+)`).exec(t)) !== null) {
    const [, totalText, ratioText] = match as unknown as [string, string, string];
    const parts = ratioText.split(':').map((s) => exact(s.trim()));
    if (!usesEveryNumber(t, [Number(totalText), ...parts.map((p) => p.toNumber())])) return undefined;
    const sum = parts.reduce((a, b) => a.add(b), Rational.ZERO);
    if (sum.isZero) return undefined;
    const shares = parts.map((p) => exact(totalText).mul(p).div(sum));
    const solved: EngineSolution = {
      solved: true,
      category: 'percent_ratio',
      intent: 'evaluate',
      problem: `share ${totalText} in the ratio ${ratioText}`,
      steps: [
        { title: 'Add the parts of the ratio', detail: m(`${parts.map((p) => p.toTex()).join(' + ')} = ${sum.toTex()}`) },
        { title: 'Find one part', detail: m(`${exact(totalText).toTex()} \\div ${sum.toTex()} = ${exact(totalText).div(sum).toTex()}`) },
        { title: 'Multiply each part', detail: shares.map((s, i) => m(`${parts[i]!.toTex()} \\times ${exact(totalText).div(sum).toTex()} = ${s.toTex()}`)).join(', ') },
        { title: 'Check', detail: `The shares add up to ${m(shares.reduce((a, b) => a.add(b), Rational.ZERO).toTex())}.` },
      ],
      finalAnswer: shares.map((s) => exactWithDecimal(s)).join(' : '),
      answer: { kind: 'ratio', parts: shares.map((s) => s.toNumber()) },
      verification: 'the shares add up to the total and are in the given ratio (exact)',
    };
    return solved;
  }
  if ((match = /simplify the ratio\s+(\d+(?:\s*:\s*\d+)+)/.exec(t)) !== null) {
    const parts = match[1]!.split(':').map((s) => BigInt(s.trim()));
    if (!usesEveryNumber(t, parts.map(Number)) || parts.some((p) => p === 0n)) return undefined;
    const g = parts.reduce((a, b) => gcdBig(a, b));
    const reduced = parts.map((p) => p / g);
    const solved: EngineSolution = {
      solved: true,
      category: 'percent_ratio',
      intent: 'simplify',
      problem: `simplify the ratio ${match[1]!}`,
      steps: [
        { title: 'Find the highest common factor', detail: `The HCF of ${parts.join(', ')} is ${g}.` },
        { title: 'Divide every part by it', detail: m(reduced.join(' : ')) },
      ],
      finalAnswer: reduced.join(' : '),
      answer: { kind: 'ratio', parts: reduced.map(Number) },
      verification: 'each part divided by the same factor; the parts have no common factor left',
    };
    return solved;
  }
  return undefined;
}

function gcdBig(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function done(ctx: ProblemContext, problem: string, steps: Step[], result: Rational, unit = '', note = ''): EngineSolution {
  return {
    solved: true,
    category: 'percent_ratio',
    intent: ctx.intent ?? 'evaluate',
    problem,
    steps,
    finalAnswer: `${exactWithDecimal(result)}${unit}${note}`,
    answer: unit === '%' ? { kind: 'number', value: result.toNumber(), unit: '%' } : { kind: 'number', value: result.toNumber() },
    verification: 'exact rational arithmetic',
  };
}
