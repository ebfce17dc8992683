/**
 * The unknown a problem asks for, read from its wording: "solve for y", "find a", "find the value of
 * k", "what is n?", "… for t". Undefined when the wording names none ("solve 2x + 1 = 5"). The article
 * "a" counts only where nothing but punctuation or a connective follows ("find a", not "find a number").
 */
const ASKS: readonly RegExp[] = [
  /\bsolve\s+for\s+([a-z])\b/i,
  /\b(?:find|calculate|determine|work out)\s+(?:the\s+values?\s+of\s+)?([a-z])\b(?=\s*(?:$|[.,;:?!]|and\b|if\b|when\b|given\b|such\b|where\b|in\b))/i,
  /\b(?:what|how much)\s+is\s+([a-z])\s*(?:$|[.?!,])/i,
  /\bvalues?\s+of\s+([a-z])\b(?=\s*(?:$|[.,;:?!]|and\b|if\b|when\b|given\b|such\b|where\b|in\b))/i,
  /\bfor\s+([a-z])\s*[.?!]?\s*$/i,
];

export function askedFor(text: string): string | undefined {
  for (const pattern of ASKS) {
    const match = pattern.exec(text);
    if (match?.[1] !== undefined) return match[1];
  }
  return undefined;
}
