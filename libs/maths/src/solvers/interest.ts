import { Rational } from '../core/rational.js';
import type { EngineSolution, SolverResult } from '../types.js';
import type { ProblemContext } from './context.js';
import { m } from './context.js';
import { exact, money, usesEveryNumber } from './word-support.js';

const N = '(\\d+(?:,\\d{3})*(?:\\.\\d+)?)';
const PERIODS: Record<string, number> = { annually: 1, yearly: 1, 'semi-annually': 2, 'half-yearly': 2, quarterly: 4, monthly: 12 };

/** Simple interest I = P·r·t and compound interest A = P(1 + r/n)^(n·t); the question says which. */
export function solveInterest(ctx: ProblemContext): SolverResult {
  const t = ctx.lower;
  if (!/\binterest\b|compounded/.test(t)) return undefined;
  const simple = /\bsimple interest\b/.test(t);
  const compound = /\bcompound(ed)?\b/.test(t);
  if (simple === compound) return undefined;
  const principal = new RegExp(`[$£€]\\s*${N}|${N}\\s*(?:dollars|pounds|euros)`).exec(t);
  const rate = new RegExp(`${N}\\s*(?:%|percent)`).exec(t);
  const years = new RegExp(`${N}\\s*years?`).exec(t);
  if (principal === null || rate === null || years === null) return undefined;
  const pText = (principal[1] ?? principal[2])!;
  if (!usesEveryNumber(t, [Number(pText.replace(/,/g, '')), Number(rate[1]), Number(years[1])])) return undefined;
  const asksInterest = /how much (?:simple |compound )?interest|find the (?:simple |compound )?interest|what is the (?:simple |compound )?interest|interest earned|calculate the (?:simple |compound )?interest/.test(t);
  const asksAmount = /\b(amount|total|balance|worth|how much (?:money )?will|how much is in)/.test(t);
  if (asksInterest === asksAmount) return undefined;
  const P = exact(pText);
  const r = exact(rate[1]!).div(Rational.of(100));
  const n = exact(years[1]!);
  if (!n.isInteger && compound) return undefined;
  const currency = /£/.test(t) ? '£' : /€/.test(t) ? '€' : '$';
  let amount: Rational;
  const steps: EngineSolution['steps'][number][] = [];
  if (simple) {
    const interest = P.mul(r).mul(n);
    amount = P.add(interest);
    steps.push({ title: 'Write the formula', detail: m('I = P \\times r \\times t') });
    steps.push({ title: 'Substitute', detail: m(`I = ${P.toTex()} \\times ${r.toTex()} \\times ${n.toTex()} = ${interest.toTex()}`) });
  } else {
    const periodWord = Object.keys(PERIODS).find((k) => t.includes(k)) ?? 'annually';
    const k = PERIODS[periodWord]!;
    const periods = Number(n.num) * k;
    if (!n.isInteger || periods > 1200) return undefined;
    amount = P.mul(Rational.ONE.add(r.div(Rational.of(k))).pow(periods));
    steps.push({ title: 'Write the formula', detail: m(`A = P\\left(1 + \\frac{r}{${k}}\\right)^{${k} t}`) });
    steps.push({ title: 'Substitute', detail: m(`A = ${P.toTex()} \\times ${Rational.ONE.add(r.div(Rational.of(k))).toTex()}^{${periods}} \\approx ${money(amount)}`) });
  }
  const interest = amount.sub(P);
  if (asksInterest) steps.push({ title: 'The interest earned', detail: m(`${money(amount)} - ${P.toTex()} = ${money(interest)}`) });
  else steps.push({ title: 'The final amount', detail: m(`A = ${money(amount)}`) });
  // Money is answered to the cent: the structured value is the rounded figure the answer states.
  const value = asksInterest ? interest : amount;
  return {
    solved: true,
    category: 'interest',
    intent: 'evaluate',
    problem: `${simple ? 'simple' : 'compound'} interest on ${currency}${pText} at ${rate[1]}% for ${years[1]} years`,
    steps,
    finalAnswer: `${currency}${money(value)}`,
    answer: { kind: 'number', value: Number(money(value)), unit: currency },
    verification: 'exact rational arithmetic, rounded to the cent at the end',
  };
}
