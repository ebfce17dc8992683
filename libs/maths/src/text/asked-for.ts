/**
 * The unknown a problem asks for, read from its wording: "solve for y", "find a", "find the value of
 * k", "what is n?", "… for t", "make x the subject", "express x in terms of y", "x = ?". Undefined when
 * the wording names none ("solve 2x + 1 = 5"). The article "a" counts only where nothing but
 * punctuation or a connective follows ("find a", not "find a number").
 */
const ASKS: readonly RegExp[] = [
  /\bsolve\s+for\s+([a-z])\b/i,
  // A rearrangement names the unknown it asks for by its role, not with "find": without it "make x the
  // subject of y = 2x + 3" and "make y the subject of y = 2x + 3" would be one question.
  /\bmake\s+([a-z])\s+the\s+subject\b/i,
  /\b(?:express|write|give|state|find|rearrange\s+for)\s+([a-z])\s+in\s+terms\s+of\b/i,
  /(?:^|[.,;:]\s*)([a-z])\s*=\s*\?/i,
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
