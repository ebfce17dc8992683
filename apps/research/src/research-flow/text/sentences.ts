/**
 * Plain-text helpers of the local (offline) researcher and synthesizer: sentences, content words and
 * a relevance score against the research prompt. Deterministic, no model.
 */

const STOPWORDS = new Set(
  (
    'a about above after again all also am an and any are as at be because been before being below between both but by can could ' +
    'did do does doing down during each either even ever every few for from further had has have having he her here his how however ' +
    'i if in into is it its itself just like many may me might more most much must my near no nor not now of off often on once one only ' +
    'or other our out over own per quite rather same shall she should since so some such than that the their them then there these they ' +
    'this those though through thus to too under until up upon us very via was we well were what when where whether which while who whom ' +
    'whose why will with within without would yet you your compare cover explain describe discuss tell give list please research question'
  ).split(/\s+/),
);

/** Sentences of a text: split after . ? ! (not inside numbers like 2.5) or at blank lines and list items. */
export function sentencesOf(text: string): string[] {
  return text
    .replace(/\r/g, '')
    .split(/\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)/)
    .flatMap((block) => block.replace(/\s+/g, ' ').trim().split(/(?<=[.?!])\s+(?=[A-Z0-9"'(“])/))
    .map((s) => s.replace(/^(?:[-*•]|\d+[.)])\s+/, '').trim())
    .filter((s) => s.length >= 20 && /[\p{L}]{3}/u.test(s));
}

function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** A light stem so "pumps" ~ "pump", "studies" ~ "study", "heating" ~ "heat". */
function stem(word: string): string {
  if (word.length <= 4 || /\d/.test(word)) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  for (const suffix of ['ing', 'ers', 'ed', 'es', 's']) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3 && !word.endsWith('ss')) return word.slice(0, -suffix.length);
  }
  return word;
}

/** Stemmed content words (stopwords and one-letter tokens dropped). */
export function contentWords(text: string): string[] {
  return fold(text)
    .split(' ')
    .filter((w) => w.length > 1 && !STOPWORDS.has(w))
    .map(stem);
}

/**
 * The content-word set of a sentence, remembered for the most recent sentences: the synthesizer and
 * the extractive researcher compare every sentence with many others, and folding and stemming the
 * same sentence again for each pair was most of their time.
 */
const recentWordSets = new Map<string, ReadonlySet<string>>();
const RECENT_WORD_SETS = 4096;

function wordSetOf(sentence: string): ReadonlySet<string> {
  const known = recentWordSets.get(sentence);
  if (known !== undefined) return known;
  const words = new Set(contentWords(sentence));
  if (recentWordSets.size >= RECENT_WORD_SETS) recentWordSets.delete(recentWordSets.keys().next().value as string);
  recentWordSets.set(sentence, words);
  return words;
}

/** Share of the prompt's distinct content words the sentence contains (0..1), with a small bonus for figures. */
export function relevance(sentence: string, promptWords: ReadonlySet<string>): number {
  if (promptWords.size === 0) return 0;
  const words = wordSetOf(sentence);
  let hits = 0;
  for (const word of promptWords) if (words.has(word)) hits += 1;
  return hits / promptWords.size + (/\d/.test(sentence) ? 0.05 : 0);
}

/** Jaccard similarity of two sentences' content words. */
export function similarity(a: string, b: string): number {
  const x = wordSetOf(a);
  const y = wordSetOf(b);
  if (x.size === 0 || y.size === 0) return 0;
  let shared = 0;
  for (const w of x) if (y.has(w)) shared += 1;
  return shared / (x.size + y.size - shared);
}

/** Cuts `text` to `max` characters at a sentence or word boundary; says whether it cut. */
export function cutTo(text: string, max: number): { readonly text: string; readonly truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const slice = text.slice(0, max - 1);
  const end = Math.max(slice.lastIndexOf('. '), slice.lastIndexOf('\n'));
  const cut = end > max * 0.6 ? slice.slice(0, end + 1) : slice.slice(0, Math.max(slice.lastIndexOf(' '), 1));
  return { text: `${cut.trimEnd()}…`, truncated: true };
}
