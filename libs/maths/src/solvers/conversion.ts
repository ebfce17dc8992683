import { Rational } from '../core/rational.js';
import type { SolverResult, Step } from '../types.js';
import type { ProblemContext } from './context.js';
import { m } from './context.js';
import { usesEveryNumber } from './word-support.js';

type Form = 'fraction' | 'decimal' | 'percentage';
const SOURCE = /\b(?:write|convert|express|change|give|what is)\s+(-?\d+(?:\.\d+)?\s*\/\s*\d+|-?\d+(?:\.\d+)?\s*%|-?\d*\.\d+|-?\d+)\s+(?:as|to|into|in)\s+(?:an?\s+)?(fraction|decimal|percentage|per ?cent)\b/;

/**
 * Fractions ↔ decimals ↔ percentages: the number as written is read exactly (a rational), and written
 * in the form asked for: a fraction in lowest terms, a decimal (exact when it terminates, else the
 * recurring digits marked), a percentage. Checked by converting the answer back to the form given.
 */
export function solveConversion(ctx: ProblemContext): SolverResult {
  const match = SOURCE.exec(ctx.lower);
  if (match === null) return undefined;
  const written = match[1]!.replace(/\s+/g, '');
  const target: Form = match[2]!.startsWith('per') ? 'percentage' : (match[2] as Form);
  const source: Form = written.includes('/') ? 'fraction' : written.endsWith('%') ? 'percentage' : 'decimal';
  const numbers = written.split(/[/%]/).filter((p) => p !== '').map((p) => Math.abs(Number(p)));
  if (!usesEveryNumber(ctx.lower, numbers) || source === target) return undefined;
  const value = readExactly(written, source);
  if (value === undefined) return { solved: false, inScope: true, category: 'conversion', reason: `${written} has a zero denominator` };
  const steps: Step[] = [{ title: `Read ${written} exactly`, detail: readingDetail(written, source, value) }];
  let finalAnswer: string;
  let answerValue: number;
  switch (target) {
    case 'fraction':
      steps.push({ title: 'Cancel common factors', detail: `The numerator and denominator share no factor above 1 now: ${m(value.toTex())}.` });
      finalAnswer = value.toString();
      answerValue = value.toNumber();
      break;
    case 'decimal': {
      const decimal = decimalOf(value);
      steps.push({ title: 'Divide the numerator by the denominator', detail: `${m(`${value.num} \\div ${value.den}`)} = ${decimal}` });
      finalAnswer = decimal;
      answerValue = value.toNumber();
      break;
    }
    case 'percentage': {
      const percent = value.mul(Rational.of(100));
      steps.push({ title: 'Multiply by 100', detail: `${m(`${value.toTex()} \\times 100 = ${percent.toTex()}`)}, so it is ${decimalOf(percent)}% (digits in brackets repeat for ever).` });
      // A recurring percentage keeps its bracketed repeating digits before the sign: 66.(6)%.
      finalAnswer = `${decimalOf(percent).replace(' recurring', '')}%`;
      answerValue = percent.toNumber();
      break;
    }
  }
  // The check: the answer read back exactly, in the form it is written, is the number given.
  const back = readExactly(finalAnswer.replace(/\.{3}.*$/, ''), target);
  const exactDecimal = !finalAnswer.includes('(');
  if (exactDecimal && (back === undefined || !back.equals(value))) throw new Error('the conversion does not read back as the number given');
  return {
    solved: true,
    category: 'conversion',
    intent: 'convert',
    problem: `${written} as a ${target}`,
    steps,
    finalAnswer,
    answer: { kind: 'number', value: answerValue },
    verification: exactDecimal ? `the answer ${finalAnswer} read back exactly equals ${written}` : `the recurring digits repeat the remainder cycle of ${value.toString()}`,
  };
}

function readExactly(written: string, form: Form): Rational | undefined {
  if (form === 'fraction' && written.includes('/')) {
    const [top, bottom] = written.split('/').map((p) => Rational.parse(p));
    return top === undefined || bottom === undefined || bottom.isZero ? undefined : top.div(bottom);
  }
  const number = Rational.parse(written.replace('%', ''));
  if (number === undefined) return undefined;
  return form === 'percentage' ? number.div(Rational.of(100)) : number;
}

function readingDetail(written: string, source: Form, value: Rational): string {
  if (source === 'percentage') return `Per cent means out of 100: ${m(`${written.replace('%', '\\%')} = \\frac{${written.replace('%', '')}}{100} = ${value.toTex()}`)}.`;
  if (source === 'decimal') {
    const places = written.split('.')[1]?.length ?? 0;
    return `${places} decimal place${places === 1 ? '' : 's'}: ${m(`${written} = \\frac{${written.replace(/^(-?)0*\.?/, '$1').replace('.', '') || '0'}}{${10 ** places}} = ${value.toTex()}`)}.`;
  }
  return m(`${written} = ${value.toTex()}`);
}

/** The decimal of a rational: exact when it terminates, otherwise the repeating block marked ("0.1(6) recurring"). */
function decimalOf(value: Rational): string {
  const terminating = value.toTerminatingDecimal(12);
  if (terminating !== undefined) return terminating;
  const negative = value.sign < 0;
  const num = negative ? -value.num : value.num;
  const whole = num / value.den;
  let remainder = num % value.den;
  const seen = new Map<bigint, number>();
  let digits = '';
  while (remainder !== 0n && !seen.has(remainder) && digits.length < 60) {
    seen.set(remainder, digits.length);
    remainder *= 10n;
    digits += String(remainder / value.den);
    remainder %= value.den;
  }
  const start = seen.get(remainder) ?? digits.length;
  return `${negative ? '-' : ''}${whole}.${digits.slice(0, start)}(${digits.slice(start)}) recurring`;
}
