import type { Intent } from '../types.js';

/** The first matching wording decides; order matters (a "derivative" problem also says "find"). */
const RULES: readonly [Intent, RegExp][] = [
  ['differentiate', /\b(differentiate|derivative|d\/d[a-z]|dy\/dx|rate of change)\b|\b[fgh]'\s*\(/],
  ['integrate', /\b(integrate|integral|antiderivative|anti-derivative)\b|∫/],
  ['limit', /\b(limit|lim)\b/],
  ['factor', /\b(factori[sz]e|factor|factorise completely)\b/],
  ['expand', /\b(expand|multiply out|remove the brackets)\b/],
  ['convert', /\bconvert\b|\bhow many \w+ (are |is )?(there )?in\b|\bexpress \d/],
  // "in simplest surd form", "exact value", "rationalise": an answer in decimals would not be what is asked.
  ['simplify', /\b(simplify|simplest (?:\w+ )?form|surd form|exact (?:form|value|answer)|rationali[sz]e|reduce)\b/],
  ['solve', /\b(solve|roots?|zeros?|find (the value of )?[a-z]\b|what is [a-z]\b)|=|<|>/],
  ['evaluate', /\b(evaluate|calculate|compute|what is|work out|find|how (much|many|far|long|fast))\b/],
];

export function detectIntent(lowerText: string): Intent | undefined {
  return RULES.find(([, pattern]) => pattern.test(lowerText))?.[0];
}
