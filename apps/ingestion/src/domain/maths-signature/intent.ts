import type { MathsIntent } from './maths-signature.js';

const EXPLICIT: readonly (readonly [MathsIntent, RegExp])[] = [
  ['differentiate', /\b(?:differentiate|derivative|d\/dx)\b/],
  ['integrate', /\b(?:integrate|integral|antiderivative)\b/],
  ['factor', /\b(?:factori[sz]e|factor)\b/],
  ['expand', /\b(?:expand|multiply out)\b/],
];
const SIMPLIFY = /\b(?:simplify|simplest form)\b/;
const EVALUATE = /\b(?:evaluate|compute|calculate|work out|what is|what's|how much|value of|find)\b/;

/**
 * The question's intent, as far as it changes the answer. An equation or inequality is solved however
 * it is asked ("solve", "what is x when", "find x"), and a numeric expression is evaluated whether asked
 * to "simplify", "compute" or nothing; only intents that ask for something else (expand, factor,
 * differentiate, integrate) or an expression in unknowns keep their own class.
 */
export function questionIntent(text: string, hasStatement: boolean, hasUnknowns: boolean): MathsIntent {
  for (const [intent, pattern] of EXPLICIT) if (pattern.test(text)) return intent;
  if (hasStatement) return 'solve';
  if (!hasUnknowns) return 'evaluate';
  if (SIMPLIFY.test(text)) return 'simplify';
  if (EVALUATE.test(text)) return 'evaluate';
  return 'unspecified';
}
