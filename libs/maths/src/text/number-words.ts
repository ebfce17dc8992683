/**
 * Number words read as numbers: "seven" → 7, "twenty-one" → 21, "one hundred and five" → 105. A run of
 * number words that does not form one cardinal number ("one two three") is left as words, never summed.
 */
const UNITS: Readonly<Record<string, number>> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, thirteen: 13,
  fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Readonly<Record<string, number>> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
/** The number a single number word says ("seven" → 7, "forty" → 40, "twenty-one" → 21), or undefined. */
export function numberWordValue(word: string): number | undefined {
  const lower = word.toLowerCase();
  const [tens, unit, ...more] = lower.split('-');
  if (unit !== undefined) {
    // Only a tens word hyphenated to a digit word is one number: "twenty-one", not "one-two" or "twenty-ten".
    const digit = UNITS[unit];
    return more.length === 0 && TENS[tens!] !== undefined && digit !== undefined && digit >= 1 && digit <= 9 ? TENS[tens!]! + digit : undefined;
  }
  return UNITS[lower] ?? TENS[lower];
}
/**
 * Words to tokens: number words to digits ("twenty-eight", "a hundred and five"); a comma is kept as a
 * token (it groups: "the product of 4 and a number, minus 3"), except a thousands separator ("1,000")
 * and commas at the clause's ends, which group nothing.
 */
export function tokens(clause: string): string[] | undefined {
  const words = clause.toLowerCase().replace(/(\d),(\d{3})\b/g, '$1$2').match(/-?\d+(?:\.\d+)?|[a-z]+(?:'[a-z]+)?|,/g) ?? [];
  while (words[0] === ',') words.shift();
  while (words.at(-1) === ',') words.pop();
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (UNITS[word] === undefined && TENS[word] === undefined && !(word === 'hundred' || word === 'thousand')) {
      out.push(word);
      continue;
    }
    // A run of number words: "one hundred and twenty three", "forty five".
    let total = 0;
    let current = 0;
    let j = i;
    for (; j < words.length; j++) {
      const w = words[j]!;
      if (UNITS[w] !== undefined) current += UNITS[w];
      else if (TENS[w] !== undefined) current += TENS[w];
      else if (w === 'hundred') current = (current || 1) * 100;
      else if (w === 'thousand') {
        total += (current || 1) * 1000;
        current = 0;
      } else if (w === 'and' && j > i && (words[j - 1] === 'hundred' || words[j - 1] === 'thousand') && (UNITS[words[j + 1] ?? ''] !== undefined || TENS[words[j + 1] ?? ''] !== undefined)) continue;
      else break;
    }
    // Number words that do not form one number ("one two three", "twenty twenty", "two thousand
    // thousand") were summed into one: left as words, which no worded reading reads, never guessed at.
    const run = words.slice(i, j);
    if (wellFormedNumber(run)) out.push(String(total + current));
    else out.push(...run);
    i = j - 1;
  }
  return out.length === 0 ? undefined : out;
}

/**
 * A run of number words that is one cardinal number: [below a hundred | a digit "hundred" [below a
 * hundred]] ["thousand" [the same]], "and" anywhere the run allowed it ("one hundred and five").
 */
function wellFormedNumber(run: readonly string[]): boolean {
  const words = run.filter((w) => w !== 'and');
  let at = 0;
  const digit = (w: string | undefined): boolean => w !== undefined && (UNITS[w] ?? 0) >= 1 && (UNITS[w] ?? 0) <= 9;
  const belowHundred = (): boolean => {
    const w = words[at];
    if (w !== undefined && TENS[w] !== undefined) {
      at += digit(words[at + 1]) ? 2 : 1;
      return true;
    }
    if (w !== undefined && UNITS[w] !== undefined) {
      at += 1;
      return true;
    }
    return false;
  };
  const belowThousand = (): boolean => {
    if (words[at] === 'hundred' || (digit(words[at]) && words[at + 1] === 'hundred')) {
      at += words[at] === 'hundred' ? 1 : 2;
      belowHundred();
      return true;
    }
    return belowHundred();
  };
  if (words[at] === 'thousand') at += 1;
  else {
    if (!belowThousand()) return false;
    if (words[at] === 'thousand') at += 1;
  }
  if (words[at - 1] === 'thousand') belowThousand();
  return at === words.length;
}

