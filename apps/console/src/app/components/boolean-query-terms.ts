/**
 * The terms of a typed boolean query line: quoted phrases stay whole, AND/OR/parentheses are
 * operators, and the term after NOT is an exclusion. `x NOT survey` → keywords [x], excluded [survey].
 */
export function termsOf(line: string): { keywords: string[]; excluded: string[] } {
  const keywords: string[] = [];
  const excluded: string[] = [];
  let negate = false;
  for (const match of line.matchAll(/"([^"]*)"|([^\s()"]+)/gu)) {
    const term = (match[1] ?? match[2] ?? '').trim();
    if (term === 'NOT') negate = true;
    else if (term !== '' && term !== 'AND' && term !== 'OR') {
      (negate ? excluded : keywords).push(term);
      negate = false;
    }
  }
  return { keywords: keywords.length > 0 ? [...new Set(keywords)] : [line.trim()], excluded: [...new Set(excluded)] };
}

/** The most excluded terms a strategy holds (the contract's `excludedTerms` bound, sized for a message). */
export const MAX_EXCLUDED_TERMS = 30;

/**
 * The excluded terms of an edited strategy: the strategy's own, then every NOT term of the typed lines,
 * once each (case aside). All of them, never cut: `overBy` says how many are past the bound, so the
 * form can ask for fewer instead of dropping some silently.
 */
export function editedExclusions(strategyExcluded: readonly string[], lines: readonly string[]): { terms: string[]; overBy: number } {
  const seen = new Set<string>();
  const terms = [...strategyExcluded, ...lines.flatMap((line) => termsOf(line).excluded)].filter((term) => {
    const key = term.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { terms, overBy: Math.max(0, terms.length - MAX_EXCLUDED_TERMS) };
}
