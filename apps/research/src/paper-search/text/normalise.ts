import { foldText } from '@openpaw/contracts';

/** Text folding (the contracts' own, which the collection exports use too). */
export { foldText };

/** The title as dedup compares it exactly: folded, so "BERT: Pre-Training..." = "Bert pre training ...". */
export function normaliseTitle(title: string): string {
  return foldText(title);
}

const STOPWORDS = new Set(
  (
    'a an and are as at be been by can do does for from has have how i in into is it its of on or our over paper papers ' +
    'recent research study studies survey that the their these this those to toward towards under use used using via was what when where which ' +
    'who why will with within without find me show give about any some more most new based approach approaches method methods'
  ).split(' '),
);

/** Content words of a text (folded, stopwords and one-letter tokens dropped). */
export function contentWords(text: string): string[] {
  return foldText(text)
    .split(' ')
    .filter((w) => w.length > 1 && !STOPWORDS.has(w));
}

/** A light English stemmer for matching ("networks" ~ "network", "imaging" ~ "images", "studies" ~ "study"). */
export function stem(word: string): string {
  if (word.length <= 4 || /\d/.test(word)) return word;
  let base = word;
  if (base.endsWith('ies')) base = `${base.slice(0, -3)}y`;
  else if (/(?:ss|x|z|ch|sh)es$/.test(base)) base = base.slice(0, -2);
  else {
    for (const suffix of ['ational', 'ization', 'ations', 'ation', 'ments', 'ment', 'ings', 'ing', 'ers', 'er', 'ed', 'ly', 's']) {
      if (base.endsWith(suffix) && base.length - suffix.length >= 3 && !base.endsWith('ss')) {
        base = base.slice(0, -suffix.length);
        break;
      }
    }
  }
  return base.length > 4 && base.endsWith('e') ? base.slice(0, -1) : base;
}

export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}
