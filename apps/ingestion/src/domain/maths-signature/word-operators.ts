/**
 * Word operators spelled out in a problem's (normalised, lower-case) text, rewritten as the symbols a
 * typed copy would use: "4 times x plus 3 equals 15" → "4*x+3=15". A word is only rewritten between two
 * operands (a number, a single-letter unknown or a bracket), so "how many times" or "the sum plus tax"
 * stay prose.
 */
const OPERAND_BEFORE = String.raw`(?<=(?:\d|\)|(?:^|[^a-z])[a-z]))`;
const OPERAND_AFTER = String.raw`(?=-?(?:\d|\(|[a-z](?![a-z])))`;

const BINARY: readonly (readonly [string, string])[] = [
  ['is equal to', '='],
  ['is equal', '='],
  ['equal to', '='],
  ['equals', '='],
  ['is less than or equal to', '<='],
  ['is greater than or equal to', '>='],
  ['is less than', '<'],
  ['is greater than', '>'],
  ['plus', '+'],
  ['minus', '-'],
  ['multiplied by', '*'],
  ['times', '*'],
  ['divided by', '/'],
  ['raised to the power of', '^'],
  ['to the power of', '^'],
];

const POSTFIX: readonly (readonly [string, string])[] = [
  ['squared', '^2'],
  ['cubed', '^3'],
];

const BINARY_PATTERNS = BINARY.map(
  ([words, symbol]) => [new RegExp(`${OPERAND_BEFORE}\\s+${words.replace(/ /g, '\\s+')}\\s+${OPERAND_AFTER}`, 'g'), symbol] as const,
);
const POSTFIX_PATTERNS = POSTFIX.map(([word, symbol]) => [new RegExp(`${OPERAND_BEFORE}\\s+${word}\\b`, 'g'), symbol] as const);

export function rewriteWordOperators(text: string): string {
  let out = text;
  for (const [pattern, symbol] of POSTFIX_PATTERNS) out = out.replace(pattern, symbol);
  for (const [pattern, symbol] of BINARY_PATTERNS) out = out.replace(pattern, symbol);
  return out;
}
