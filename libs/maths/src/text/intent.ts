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

/**
 * The intent the engine reads in a (lower-case, normalised) text, and the text without the wording that
 * said it ("find the roots of", "multiply out", "in simplest surd form"): a key that holds the intent
 * need not hold those words too, so two wordings of one question share it.
 */
export function intentWording(lowerText: string): { readonly intent?: Intent; readonly rest: string } {
  const rule = RULES.find(([, pattern]) => pattern.test(lowerText));
  if (rule === undefined) return { rest: lowerText };
  const [intent, pattern] = rule;
  // Only the rule's own words go: "how many cm are in" says "convert", and "cm" stays (the words a rule
  // matches as a wildcard are the question's).
  const ownWords = new Set(pattern.source.replace(/\\./g, ' ').match(/[a-z]{2,}/g) ?? []);
  const ruleWord = (word: string): boolean => ownWords.has(word) || pattern.test(word);
  const rest = lowerText.replace(new RegExp(pattern.source, 'g'), (wording) => wording.replace(/[a-z]{2,}/g, (word) => (ruleWord(word) ? ' ' : word)));
  return { intent, rest };
}
