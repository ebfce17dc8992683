import { numbersIn } from '../text/normalise.js';
import { formatDecimal, Rational } from '../core/rational.js';
import { roundedExactText } from './rounding.js';
import { sameNumber } from '../core/same-number.js';

/** A number written in the text, as an exact rational. */
export function exact(text: string): Rational {
  const value = Rational.parse(text.replace(/,/g, ''));
  if (value === undefined) throw new Error(`not a decimal number: ${text}`);
  return value;
}

const NUMBER_WORDS = /\b(?:twice|double[ds]?|doubling|triple[ds]?|thrice|half|halve[ds]?|quarter|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|twenty|thirty|forty|fifty|hundred|thousand|million)\b/i;

/**
 * Word-problem templates only answer when they account for every number in the problem: an
 * unused number means the problem says something the template does not understand.
 */
export function usesEveryNumber(text: string, used: readonly number[]): boolean {
  // A number or a multiplier written in words ("then double it", "two more") is a number the
  // template did not read; "one" is left out (an article as often as a number: "one leg", "one is picked").
  if (NUMBER_WORDS.test(text)) return false;
  const all = numbersIn(text).sort((a, b) => a - b);
  const mine = [...used].sort((a, b) => a - b);
  return all.length === mine.length && all.every((n, i) => sameNumber(n, mine[i]!, { relative: 1e-12 }));
}

/** Money to the cent, e.g. `1102.50`, rounded exactly, half a cent up ($1.005 is $1.01; its double, 1.00499…, gave $1.00). */
export function money(value: Rational): string {
  return roundedExactText(value, { places: 2, kind: 'decimal places' });
}

export function approx(value: number): string {
  return formatDecimal(value, 10);
}
