/**
 * A search strategy's boolean query as a tree, so each source is sent what the person approved in
 * the syntax it understands (arXiv's `ANDNOT`, OpenAlex's `NOT`, PostgreSQL's `!`), and what a source
 * cannot express is applied to its results here, by the same tree.
 *
 * Grammar (operators in capitals, as shown at checkpoint 1; adjacency means AND):
 *   or    := and ("OR" and)*
 *   and   := unary (("AND" | "NOT" | ε) unary)*      — `a NOT b` is `a AND NOT b`
 *   unary := "NOT" unary | "(" or ")" | "\"phrase\"" | word
 */
export type SearchExpression =
  | { readonly kind: 'term'; readonly text: string }
  | { readonly kind: 'and'; readonly items: readonly SearchExpression[] }
  | { readonly kind: 'or'; readonly items: readonly SearchExpression[] }
  | { readonly kind: 'not'; readonly item: SearchExpression };

/** A boolean query that cannot be read; `message` says where. */
export class SearchExpressionError extends Error {}

type Token = { readonly kind: 'word' | 'phrase'; readonly text: string } | { readonly kind: 'AND' | 'OR' | 'NOT' | '(' | ')' };

function tokenise(query: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(?:"([^"]*)"|(\()|(\))|([^\s()"]+))/gy;
  let match: RegExpExecArray | null;
  // A failed sticky match resets lastIndex, so the end of what was read is kept here.
  let end = 0;
  while ((match = pattern.exec(query)) !== null && match[0] !== '') {
    end = pattern.lastIndex;
    if (match[1] !== undefined) {
      const phrase = match[1].replace(/\s+/g, ' ').trim();
      if (phrase !== '') tokens.push({ kind: 'phrase', text: phrase });
    } else if (match[2] !== undefined) tokens.push({ kind: '(' });
    else if (match[3] !== undefined) tokens.push({ kind: ')' });
    else if (match[4] === 'AND' || match[4] === 'OR' || match[4] === 'NOT') tokens.push({ kind: match[4] });
    else if (match[4] !== undefined) tokens.push({ kind: 'word', text: match[4] });
  }
  const rest = query.slice(end).trim();
  if (rest !== '') throw new SearchExpressionError(`unbalanced quote in boolean query: ${rest}`);
  return tokens;
}

/** Reads a boolean query; throws `SearchExpressionError` for unbalanced quotes/parentheses or a query with no positive term. */
export function parseSearchExpression(query: string): SearchExpression {
  const tokens = tokenise(query);
  let at = 0;
  const peek = (): Token | undefined => tokens[at];
  const parseOr = (): SearchExpression => {
    const items = [parseAnd()];
    while (peek()?.kind === 'OR') {
      at += 1;
      items.push(parseAnd());
    }
    return items.length === 1 ? items[0]! : { kind: 'or', items };
  };
  const parseAnd = (): SearchExpression => {
    const items = [parseUnary()];
    for (let next = peek(); next !== undefined && next.kind !== 'OR' && next.kind !== ')'; next = peek()) {
      if (next.kind === 'AND') at += 1;
      items.push(parseUnary());
    }
    return items.length === 1 ? items[0]! : { kind: 'and', items };
  };
  const parseUnary = (): SearchExpression => {
    const token = tokens[at++];
    if (token === undefined) throw new SearchExpressionError('boolean query ends where a term is expected');
    if (token.kind === 'NOT') return { kind: 'not', item: parseUnary() };
    if (token.kind === '(') {
      const inner = parseOr();
      if (tokens[at++]?.kind !== ')') throw new SearchExpressionError('boolean query has an unclosed parenthesis');
      return inner;
    }
    if (token.kind === 'word' || token.kind === 'phrase') return { kind: 'term', text: token.text };
    throw new SearchExpressionError(`boolean query has ${token.kind} where a term is expected`);
  };
  const expression = parseOr();
  if (at < tokens.length) throw new SearchExpressionError('boolean query has an unmatched closing parenthesis');
  if (positiveTerms(expression).length === 0) throw new SearchExpressionError('boolean query has no term to search for, only exclusions');
  return expression;
}

/** Terms a paper should contain (everything not under a NOT), in order, without repeats. */
export function positiveTerms(expression: SearchExpression): string[] {
  const out: string[] = [];
  const walk = (e: SearchExpression): void => {
    if (e.kind === 'term') out.push(e.text);
    else if (e.kind !== 'not') e.items.forEach(walk);
  };
  walk(expression);
  return [...new Set(out)];
}

/** Terms under a NOT. */
export function excludedTermsOf(expression: SearchExpression): string[] {
  if (expression.kind === 'not') return positiveTerms(expression.item);
  if (expression.kind === 'term') return [];
  return [...new Set(expression.items.flatMap(excludedTermsOf))];
}

/** The operators an expression uses, to say what a source that cannot express them had applied locally. */
export function operatorsOf(expression: SearchExpression): Set<'AND' | 'OR' | 'NOT'> {
  const out = new Set<'AND' | 'OR' | 'NOT'>();
  const walk = (e: SearchExpression): void => {
    if (e.kind === 'term') return;
    if (e.kind === 'not') {
      out.add('NOT');
      walk(e.item);
      return;
    }
    if (e.kind === 'and' && e.items.filter((i) => i.kind !== 'not').length > 1) out.add('AND');
    if (e.kind === 'or') out.add('OR');
    e.items.forEach(walk);
  };
  walk(expression);
  return out;
}

/** The expression without its NOT parts (for a source that takes AND/OR but not exclusion). */
export function withoutExclusions(expression: SearchExpression): SearchExpression {
  if (expression.kind !== 'and' && expression.kind !== 'or') return expression;
  const items = expression.items.filter((i) => i.kind !== 'not').map(withoutExclusions);
  return items.length === 1 ? items[0]! : { kind: expression.kind, items };
}

export interface ExpressionSyntax {
  term(text: string): string;
  and(items: readonly string[]): string;
  or(items: readonly string[]): string;
  /** `positive` is null when an AND holds only exclusions (a lone `NOT x` at top level). */
  andNot(positive: string | null, excluded: readonly string[]): string;
}

/** Writes an expression in a source's syntax; sub-expressions are parenthesised by the syntax's `and`/`or`. */
export function renderExpression(expression: SearchExpression, syntax: ExpressionSyntax): string {
  const render = (e: SearchExpression): string => {
    if (e.kind === 'term') return syntax.term(e.text);
    if (e.kind === 'or') return syntax.or(e.items.map(render));
    const items = e.kind === 'not' ? [e] : e.items;
    const positives = items.filter((i) => i.kind !== 'not').map(render);
    const excluded = items.flatMap((i) => (i.kind === 'not' ? [render(i.item)] : []));
    const positive = positives.length === 0 ? null : positives.length === 1 ? positives[0]! : syntax.and(positives);
    return excluded.length === 0 ? (positive ?? '') : syntax.andNot(positive, excluded);
  };
  return render(expression);
}

/** Lower case, no diacritics, letters and digits only. */
export function searchWords(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** A light English stem, so `networks` matches `network` and `studies` matches `study`. */
function stemWord(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('es') && /(?:ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/**
 * Whether a text (a work's title and abstract) satisfies an expression: a term matches when its
 * words occur in order, next to each other (a phrase), after lower-casing, removing diacritics and
 * a light plural stem.
 */
export function matchesExpression(expression: SearchExpression, text: string): boolean {
  const words = searchWords(text).map(stemWord);
  const joined = ` ${words.join(' ')} `;
  const evaluate = (e: SearchExpression): boolean => {
    if (e.kind === 'term') {
      const phrase = searchWords(e.text).map(stemWord);
      return phrase.length > 0 && joined.includes(` ${phrase.join(' ')} `);
    }
    if (e.kind === 'not') return !evaluate(e.item);
    return e.kind === 'and' ? e.items.every(evaluate) : e.items.some(evaluate);
  };
  return evaluate(expression);
}
