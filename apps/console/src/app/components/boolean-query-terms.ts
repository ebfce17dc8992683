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
