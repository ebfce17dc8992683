/** Year bounds, language and result count stated in plain words, and the text with those words removed. */
export interface StatedConstraints {
  readonly yearFrom: number | null;
  readonly yearTo: number | null;
  readonly language: string | null;
  readonly maxResults: number | null;
  /** The text without the phrases that stated them. */
  readonly rest: string;
}

const NUMBER_WORDS: Readonly<Record<string, number>> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twenty: 20 };
const LANGUAGES: Readonly<Record<string, string>> = { english: 'en', french: 'fr', german: 'de', spanish: 'es', chinese: 'zh', japanese: 'ja', portuguese: 'pt', italian: 'it', russian: 'ru', korean: 'ko' };

/**
 * Reads "since 2019", "after 2019" (2020 on), "before 2015", "2018-2021", "in 2020", "in the last
 * 5 years" (relative to `currentYear`), "in French", "top 20 papers".
 */
export function readStatedConstraints(text: string, currentYear: number): StatedConstraints {
  let rest = ` ${text} `;
  let yearFrom: number | null = null;
  let yearTo: number | null = null;
  let language: string | null = null;
  let maxResults: number | null = null;
  const take = (pattern: RegExp, apply: (m: RegExpExecArray) => void): void => {
    const match = pattern.exec(rest);
    if (match === null) return;
    apply(match);
    rest = rest.replace(match[0], ' ');
  };
  const year = (s: string): number => Number(s);
  take(/\b(?:between|from)?\s*((?:19|20)\d{2})\s*(?:-|–|to|and)\s*((?:19|20)\d{2})\b/i, (m) => {
    yearFrom = year(m[1]!);
    yearTo = year(m[2]!);
  });
  take(/\b(?:in the |over the )?(?:last|past)\s+(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twenty)\s+years?\b/i, (m) => {
    const n = NUMBER_WORDS[m[1]!.toLowerCase()] ?? Number(m[1]);
    yearFrom = currentYear - n;
  });
  take(/\b(?:published\s+)?(since|from|after)\s+((?:19|20)\d{2})\b/i, (m) => {
    yearFrom = year(m[2]!) + (m[1]!.toLowerCase() === 'after' ? 1 : 0);
  });
  take(/\b(?:published\s+)?(before|until|up to|through|by)\s+((?:19|20)\d{2})\b/i, (m) => {
    yearTo = year(m[2]!) - (m[1]!.toLowerCase() === 'before' ? 1 : 0);
  });
  take(/\b(?:published\s+)?in\s+((?:19|20)\d{2})\b/i, (m) => {
    yearFrom = year(m[1]!);
    yearTo = year(m[1]!);
  });
  take(/\b(?:written\s+)?in\s+(english|french|german|spanish|chinese|japanese|portuguese|italian|russian|korean)\b/i, (m) => {
    language = LANGUAGES[m[1]!.toLowerCase()] ?? null;
  });
  take(/\b(?:top|first|at most|up to)?\s*(\d{1,3})\s+(?:papers|articles|results|references)\b/i, (m) => {
    maxResults = Math.min(500, Math.max(1, Number(m[1])));
  });
  return { yearFrom, yearTo, language, maxResults, rest: rest.replace(/\s+/g, ' ').trim() };
}
