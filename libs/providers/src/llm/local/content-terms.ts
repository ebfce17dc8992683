import { createRequire } from 'node:module';
import type Compromise from 'compromise';

let tagger: typeof Compromise | undefined;
/**
 * compromise, loaded on first use: its lexicon costs every process that loads it ~20 MB (measured:
 * each service importing the providers went from ~142 to ~165 MB idle), and most never write a quiz.
 */
function nlp(): typeof Compromise {
  tagger ??= createRequire(import.meta.url)('compromise') as typeof Compromise;
  return tagger;
}

/** What a content term names: a person, place or organisation; a number with its unit; or a concept (a noun phrase). */
export type TermKind = 'name' | 'quantity' | 'concept';

export interface ContentTerm {
  /** As written the first time it appears. */
  readonly text: string;
  readonly kind: TermKind;
  /** Higher is more worth asking about: frequent in the source, specific (rare in everyday English), several words. */
  readonly score: number;
}

interface Token {
  readonly text: string;
  readonly normal: string;
  readonly post: string;
  readonly tags: ReadonlySet<string>;
}

let everyday: Readonly<Record<string, unknown>> | undefined;
/** compromise's lexicon of everyday English (about 24,000 forms): a word outside it is specific to its subject. */
function everydayLexicon(): Readonly<Record<string, unknown>> {
  everyday ??= (nlp().world() as { model: { one: { lexicon: Record<string, unknown> } } }).model.one.lexicon;
  return everyday;
}

/** "it", "its", "these": a pronoun (compromise tags "its" a possessive noun) is no term. */
const isPronoun = (token: Token): boolean => token.tags.has('Pronoun') || (token.tags.has('Possessive') && !token.tags.has('ProperNoun') && everydayLexicon()[token.normal] !== undefined);
const VERB_FORMS = new Set(['Infinitive', 'PresentTense', 'PastTense', 'Verb', 'Gerund']);
const isNoun = (token: Token): boolean => (token.tags.has('Noun') || token.tags.has('Acronym')) && !isPronoun(token);
const isNumber = (token: Token): boolean => token.tags.has('Value') || token.tags.has('NumericValue');
/** Punctuation after a token that ends a phrase (a hyphen joins, a space continues). */
const ENDS_PHRASE = /[,.;:!?()[\]"“”]/;

/**
 * The content terms of a text (issue 26): noun phrases, named and technical terms and numbers with
 * units, found by compromise's part-of-speech tagger rather than by word counts, so a function word
 * or the noun of an idiom ("takes place") is no term. Each is scored by how often it appears, how
 * specific its words are (outside the everyday lexicon, acronyms), and its length; best first.
 */
export function contentTerms(text: string): ContentTerm[] {
  const sentences = nlp()(text).json({ terms: { normal: true } }) as { terms: { text: string; normal: string; post: string; tags: string[] }[] }[];
  const found = new Map<string, { text: string; kind: TermKind; count: number; tokens: readonly Token[] }>();
  for (const sentence of sentences) {
    const tokens = withClauseVerbs(sentence.terms.map((term) => ({ text: term.text, normal: term.normal, post: term.post, tags: new Set(term.tags) })));
    for (const phrase of phrasesOf(tokens)) {
      const key = phrase.map((token) => token.normal).join(' ');
      const entry = found.get(key);
      const kind = kindOf(phrase);
      // A concept is spelt in lower case, even where it first appears capitalised at a sentence's start (acronyms keep theirs).
      const surface = kind === 'concept' && phrase[0] === tokens[0] && !phrase[0]!.tags.has('Acronym') ? lowerFirst(surfaceOf(phrase)) : surfaceOf(phrase);
      if (entry === undefined) found.set(key, { text: surface, kind, count: 1, tokens: phrase });
      else entry.count += 1;
    }
  }
  const terms = [...found.values()].map(({ text: surface, kind, count, tokens }) => ({ text: surface, kind, score: scoreOf(tokens, count, kind) }));
  return terms.sort((a, b) => b.score - a.score || b.text.length - a.text.length);
}

/**
 * Every clause has a verb: in a clause where the tagger found none ("Mitochondria produce ATP", all
 * nouns), the first word after its subject that everyday English uses as a verb is taken as its verb.
 */
function withClauseVerbs(tokens: readonly Token[]): Token[] {
  const out = [...tokens];
  let start = 0;
  for (let end = 0; end < out.length; end += 1) {
    if (!/[,;:]/.test(out[end]!.post) && end < out.length - 1) continue;
    const clause = out.slice(start, end + 1);
    if (!clause.some((token) => token.tags.has('Verb'))) {
      // A verb-capable everyday word, or a "plural" right after a singular noun and before more of the clause ("Radium emits alpha particles": a plural is a compound's head, never its middle).
      const looksLikeVerb = (token: Token, i: number): boolean =>
        VERB_FORMS.has(String(everydayLexicon()[token.normal])) || (token.tags.has('Plural') && clause[i - 1]!.tags.has('Singular') && clause[i + 1] !== undefined && !ENDS_PHRASE.test(token.post));
      const verbAt = clause.findIndex((token, i) => i > 0 && isNoun(clause[i - 1]!) && isNoun(token) && !token.tags.has('ProperNoun') && !token.tags.has('Acronym') && looksLikeVerb(token, i));
      if (verbAt > 0) out[start + verbAt] = { ...clause[verbAt]!, tags: new Set(['Verb']) };
    }
    start = end + 1;
  }
  return out;
}

/**
 * The noun phrases of one tagged sentence: runs of adjectives and nouns ending in a noun, and
 * numbers followed by their unit. A single everyday noun that follows a verb directly is the
 * verb's idiom ("takes place", "make sense"), not a term.
 */
function phrasesOf(tokens: readonly Token[]): Token[][] {
  const phrases: Token[][] = [];
  let run: Token[] = [];
  const close = (): void => {
    while (run.length > 0 && !isNoun(run.at(-1)!)) run.pop();
    if (run.length > 0) phrases.push(run);
    run = [];
  };
  tokens.forEach((token, index) => {
    const previous = tokens[index - 1];
    const startsQuantity = isNumber(token) && tokens[index + 1] !== undefined && isNoun(tokens[index + 1]!);
    const fits = startsQuantity || isNoun(token) || (token.tags.has('Adjective') && !isNumber(token)) || (run.length > 0 && isNumber(run.at(-1)!) && isNoun(token));
    if (!fits) {
      close();
      return;
    }
    // A bare singular count noun right after a verb is an idiom's ("takes place"); "releasing oxygen" (uncountable) is content.
    const idiomNoun =
      run.length === 0 &&
      previous?.tags.has('Verb') === true &&
      token.tags.has('Singular') &&
      !token.tags.has('Uncountable') &&
      isEveryday(token) &&
      !token.tags.has('Acronym') &&
      (tokens[index + 1] === undefined || !isNoun(tokens[index + 1]!));
    if (idiomNoun) return;
    run.push(token);
    if (ENDS_PHRASE.test(token.post)) close();
  });
  close();
  return phrases;
}

function surfaceOf(phrase: readonly Token[]): string {
  return phrase
    .map((token, index) => token.text + (index < phrase.length - 1 ? (token.post.includes('-') ? '-' : ' ') : ''))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function kindOf(phrase: readonly Token[]): TermKind {
  if (isNumber(phrase[0]!)) return 'quantity';
  if (phrase.some((token) => token.tags.has('ProperNoun') || token.tags.has('Person') || token.tags.has('Place') || token.tags.has('Organization'))) return 'name';
  return 'concept';
}

function isEveryday(token: Token): boolean {
  return everydayLexicon()[token.normal] !== undefined;
}

function scoreOf(phrase: readonly Token[], count: number, kind: TermKind): number {
  const words = phrase.filter((token) => !isNumber(token));
  const specific = words.filter((token) => !isEveryday(token) || token.tags.has('Acronym')).length;
  const nouns = phrase.filter(isNoun).length;
  // Frequency counts, but a specific word weighs more than a repeated everyday one.
  return 2 * Math.log2(1 + count) + 1.5 * specific + 0.5 * Math.min(nouns, 3) + (kind === 'quantity' ? 1 : 0) + (phrase.length > 1 ? 0.5 : 0);
}
