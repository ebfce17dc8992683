import { normaliseText } from '../text-normalisation.js';
import type { MathsReadingSettings, Reading } from './read-maths.js';
import { RAISED_QUESTION_MARK } from './token-checks.js';

const mathsOf = (r: Reading): string | undefined => r.extraction.signature?.hash;

/**
 * When the two passes read different exponents, which of them (if either) the exponents read again
 * settle. `rereads` are both passes' pages read again with their exponents cropped at another scale (one
 * per pass, `SECOND_EXPONENT_SCALE`): a reading stands only when it is trusted on its own (no doubts,
 * weakest maths word at the bar) and every re-read, each with exponents recovered and no doubts, reads
 * the same maths as it. So the pass that misread is overruled by its own page read again, and the pass
 * that stands is confirmed at another scale: three readings of four agree. Anything short of that, a
 * reading or re-read that doubts or recovers another number of exponents, or a re-read that reads a
 * third thing, settles nothing (undefined), and the image stays refused.
 */
export function settledByRereads(readings: readonly Reading[], rereads: readonly Reading[], settings: MathsReadingSettings): Reading | undefined {
  const exponents = readings[0]?.recoveredExponents ?? 0;
  // Only a digit read two ways is settled here: every reading and re-read free of doubts and with as many
  // exponents recovered. An exponent one pass did not find at all (a handwritten "6¹⁰" whose 1 and 0
  // touch, found as a lone "0" by one pass only) is a group cut wrong, which reading it again repeats.
  const alike = [...readings, ...rereads].every((r) => r.doubts.length === 0 && r.recoveredExponents === exponents);
  if (rereads.length < 2 || exponents === 0 || !alike) return undefined;
  const confirmed = readings.filter((r) => {
    const maths = mathsOf(r);
    return maths !== undefined && r.weakest >= settings.refuseBelow && rereads.every((again) => mathsOf(again) === maths);
  });
  return confirmed.length === 1 ? confirmed[0] : undefined;
}

/** The powers of a reading in reading order, each `^` with the operand before it: "10x^2", ")^2". */
export function powersOf(reading: Reading): string[] {
  return [...normaliseText(reading.ocr.text).matchAll(/[\w.)\]]+\^\(?-?\d+\)?/g)].map((m) => m[0]);
}

/** The digits, decimal points and operators of a reading, in order, nothing else: what its maths is made of. */
export function mathsCharactersOf(reading: Reading): string {
  return normaliseText(reading.ocr.text)
    .replace(/(?<!\d)\.|\.(?!\d)/g, '')
    .replace(/[^0-9.+\-*/=^()]/g, '');
}

/**
 * Whether the other pass read the same exponents and the same maths as the chosen one, differing only in
 * words and spacing (words run together on a small copy: "fromx=0tox=6" against "from x=0 to x=6"): the
 * chosen reading free of doubts, as many exponents recovered in both, the same powers, each on the same
 * operand with the same digits, and the same digits and operators in the same order. The other pass may
 * doubt its own words (a word run into a relation): its digits, operators and powers, all the same, are
 * the second evidence for the chosen reading's maths, so that reading stands.
 */
export function sameExponents(chosen: Reading, other: Reading): boolean {
  if (chosen.recoveredExponents === 0 || chosen.recoveredExponents !== other.recoveredExponents || chosen.doubts.length > 0) return false;
  const ours = powersOf(chosen);
  const theirs = powersOf(other);
  return ours.length > 0 && ours.length === theirs.length && ours.every((p, i) => p === theirs[i]) && mathsCharactersOf(chosen) === mathsCharactersOf(other);
}

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * How many exponents `withExponents` reads where `withQuestionMarks` has a question mark after a letter,
 * when that is all the two texts differ by ("m/s^2," against "m/s?,"; a question ending "stops?" may stay
 * as it is in both); undefined when they differ by anything else (another digit, a word, a comma), or by
 * no exponent at all.
 */
export function questionMarksFilled(withQuestionMarks: string, withExponents: string): number | undefined {
  const parts = withQuestionMarks.split(/(?<=[A-Za-z])\?/);
  const match = new RegExp(`^${parts.map(escaped).join('(\\?|\\^\\d+)')}$`).exec(withExponents);
  const filled = match?.slice(1).filter((group) => group.startsWith('^')).length ?? 0;
  return filled > 0 ? filled : undefined;
}

/**
 * When one pass found an exponent the other read as a raised question mark after a letter (the s and ²
 * of "m/s²" touching in the grey page, read "m/s?" and doubted), whether the pass that found it stands.
 * The question mark boxed raised off its letter is the other pass's evidence of a raised glyph there,
 * not of another digit: the reading with the exponents stands when it is trusted on its own, the other
 * pass's only doubts are such question marks and its text is the same but for each of them read as an
 * exponent (as many as it recovered more), and both pages read again at another scale either read the
 * same maths with as many exponents and no doubt, or keep the same question marks. Any other difference
 * (another digit, a lost comma, a re-read with another exponent) is a real disagreement: undefined.
 */
export function exponentsOverQuestionMarks(readings: readonly Reading[], rereads: readonly Reading[], settings: MathsReadingSettings): Reading | undefined {
  const trustedAlone = readings.filter((r) => r.doubts.length === 0 && r.weakest >= settings.refuseBelow && r.recoveredExponents > 0 && mathsOf(r) !== undefined);
  const chosen = trustedAlone.length === 1 ? trustedAlone[0] : undefined;
  const other = readings.find((r) => r !== chosen);
  if (chosen === undefined || other === undefined || rereads.length < 2) return undefined;
  const onlyQuestionMarks = (r: Reading): boolean => r.doubts.length > 0 && r.doubts.every((d) => d.endsWith(RAISED_QUESTION_MARK));
  const text = (r: Reading): string => normaliseText(r.ocr.text);
  const filled = questionMarksFilled(text(other), text(chosen));
  if (!onlyQuestionMarks(other) || filled === undefined || filled !== chosen.recoveredExponents - other.recoveredExponents) return undefined;
  const confirms = (again: Reading): boolean => again.doubts.length === 0 && again.recoveredExponents === chosen.recoveredExponents && mathsOf(again) === mathsOf(chosen);
  const keepsQuestionMarks = (again: Reading): boolean => onlyQuestionMarks(again) && questionMarksFilled(text(again), text(chosen)) === filled;
  const reread = (r: Reading): Reading | undefined => rereads.find((again) => again.pass === r.pass);
  const chosenAgain = reread(chosen);
  const otherAgain = reread(other);
  if (chosenAgain === undefined || otherAgain === undefined || !confirms(chosenAgain)) return undefined;
  return confirms(otherAgain) || keepsQuestionMarks(otherAgain) ? chosen : undefined;
}
