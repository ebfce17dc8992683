import type { UncertainReading } from '@openpaw/contracts';
import { type OcrAlternative, type OcrBox, type OcrChar, type OcrLine, type OcrReader, type OcrReading, OcrTimeoutError } from '@openpaw/providers/ocr';
import sharp from 'sharp';
import type { NormalisedImage } from '../image-normalisation.js';
import type { MathsBudget } from '@openpaw/maths';
import { extractMathsSignature, type ReadToken } from '../maths-signature/index.js';
import { normaliseText } from '../text-normalisation.js';
import { instructionWordLetters, INSTRUCTIONS } from './instruction-words.js';
import { enclosingInk, GLYPH_HEIGHT, lineGeometry, median } from './line-geometry.js';
import { bracketFractions, findFractions, inlineFractions } from './fractions.js';
import { placeRoots } from './radicals.js';
import { relationsFromInk } from './relations.js';
import { rescaled, sameReading, secondScale } from './second-scale.js';

export interface ReadingSettings {
  /** A character read below this probability (0..1) is doubted: the reader's other readings of it are weighed against the maths. */
  readonly minCharConfidence: number;
  /**
   * The reading is refused when readings that give other maths hold more than this share (0..1) of the
   * probability of all readings that parse: a wrong answer is worse than a refusal.
   */
  readonly maxOtherMaths: number;
  /** Bound on one read; a hung inference or provider call fails the read. */
  readonly timeoutMs: number;
  /**
   * Small print reads better larger: a page whose text lines (median box height, in pixels) are lower
   * than this is read again enlarged until they reach it. Print this tall is read as it is: enlarging it
   * only quadruples the detector's work (issue 25: a fixed 800 px width cost 446 → 148 ms p50).
   */
  readonly minLineHeight: number;
  /** The maths engine's budget for checking one candidate reading of doubted characters (default: its reading budget). */
  readonly mathsBudget?: MathsBudget;
}

export const DEFAULT_READING: ReadingSettings = { minCharConfidence: 0.98, maxOtherMaths: 0.02, timeoutMs: 10_000, minLineHeight: 32 };

/** The most a page is enlarged for small print (beyond it the print is too small to read reliably anyway). */
const MAX_ENLARGEMENT = 4;

export interface ProblemReading {
  /** The text as read, exponents written with "^", lines joined by newlines. */
  readonly text: string;
  /** The maths words with their confidences (the maths signature's reading). */
  readonly tokens: readonly ReadToken[];
  /** The weakest maths character's probability. */
  readonly confidence: number;
  readonly reader: string;
}

export type ProblemReadingOutcome =
  | { readonly status: 'read'; readonly reading: ProblemReading }
  /** `reading`: the text was read but not trusted (what was read and what it doubted), for its owner to confirm or correct. */
  | { readonly status: 'unreadable'; readonly reason: string; readonly reading?: UncertainReading };

/** Scripts the maths reading is not for: their text is refused, never misread as Latin letters. */
const FOREIGN_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Devanagari}\p{Script=Thai}]/u;
/** Greek letters a maths problem uses as symbols. */
const MATHS_GREEK = /[πθαβγδλμσφωΔΣΩ]/u;
/** Item labels ("1.", "2)", "(b)") opening a line: two of them make a worksheet, not a problem. */
const ITEM_LABEL = /^\s*(?:\(?\d{1,2}[.)]|\(?[a-h]\))\s/;
/** Characters that carry the maths: digits, operators, relations, brackets. */
const MATHS_CHAR = /[0-9+\-−×÷*/=<>≤≥^()√²³]/;

/** The page the reader reads: levelled by the measured skew, PNG. */
async function readerInput(image: NormalisedImage, skewDegrees: number): Promise<{ png: Buffer; width: number }> {
  // A level page is read as normalisation encoded it: no second PNG encoding.
  if (Math.abs(skewDegrees) < 0.5) return { png: image.png, width: image.width };
  const levelled = await sharp(image.rgb, { raw: { width: image.width, height: image.height, channels: 3 } })
    .rotate(-skewDegrees, { background: { r: 255, g: 255, b: 255 } })
    .png()
    .toBuffer({ resolveWithObject: true });
  return { png: levelled.data, width: levelled.info.width };
}

/** The median height of the lines read, in pixels (undefined when none was read). */
function lineHeight(reading: OcrReading): number | undefined {
  const heights = reading.lines.filter((l) => l.text !== '').map((l) => l.box.y1 - l.box.y0);
  return median(heights);
}

/**
 * Reads a problem from an image through the OCR port and says whether the reading can be trusted:
 * exponents placed from the characters' boxes, structure a line cannot carry refused, characters outside
 * the reader's alphabet or read unsure refused, pages of several problems and foreign text refused, and
 * maths that does not parse refused. Each refusal names what could not be read.
 */
export async function readProblem(image: NormalisedImage, skewDegrees: number, reader: OcrReader, settings: ReadingSettings = DEFAULT_READING): Promise<ProblemReadingOutcome> {
  const deadline = Date.now() + settings.timeoutMs;
  const first = await readAtScale(image, skewDegrees, reader, settings);
  if (first.status === 'read' || first.reading === undefined) return first;
  // Refused as read: once more at another scale (`secondScale`), within what is left of the bound; it
  // stands only where it reads what the first read did (`sameReading`), its doubts settled.
  const timeoutMs = deadline - Date.now();
  if (timeoutMs <= 0) return first;
  const again = await readAtScale(await rescaled(image, secondScale(image.width, image.height)), skewDegrees, reader, { ...settings, timeoutMs }).catch((error: unknown) => {
    // Out of time on the second read: the first read's refusal, which names what it doubted, stands.
    if (error instanceof OcrTimeoutError) return first;
    throw error;
  });
  return again.status === 'read' && sameReading(first.reading.text, again.reading.text) ? again : first;
}

/** One read of the page as given: read, judged, and where refused read again with its fractions inline or its doubted glyphs looked at. */
async function readAtScale(image: NormalisedImage, skewDegrees: number, reader: OcrReader, settings: ReadingSettings): Promise<ProblemReadingOutcome> {
  const deadline = Date.now() + settings.timeoutMs;
  const left = (): number => {
    const ms = deadline - Date.now();
    if (ms <= 0) throw new OcrTimeoutError(`OCR read took longer than ${settings.timeoutMs} ms`);
    return ms;
  };
  let page = await readerInput(image, skewDegrees);
  // The reader enlarges small print itself when it can tell from its text boxes (one recognition pass
  // saved), and defers its second look at doubted glyphs until the judge has doubts it could settle.
  let reading = await reader.read(page.png, { timeoutMs: left(), minLineHeight: settings.minLineHeight, secondLook: 'on-request' });
  const height = lineHeight(reading);
  if (reading.enlarged === undefined && height !== undefined && height < settings.minLineHeight) {
    // Small print a reader could not tell before reading: read again enlarged, within what is left of the read's bound.
    const scale = Math.min(MAX_ENLARGEMENT, settings.minLineHeight / Math.max(1, height));
    const enlarged = await sharp(page.png).resize({ width: Math.round(page.width * scale), kernel: 'lanczos3' }).png().toBuffer();
    page = { png: enlarged, width: Math.round(page.width * scale) };
    reading = await reader.read(enlarged, { timeoutMs: left(), secondLook: 'on-request' });
  }
  let judged = judgeReading(reading, settings);
  if (judged.status === 'read') return judged;
  // A row with stacked fractions is read again with them written inline first: the line reading's doubts
  // there are the fractions' own, which a second look at glyphs never settled (0 of 22 such pages of the
  // reading bench's seed 2511), so it only cost one to three recognition runs before the inline read.
  const readPage = page;
  const inline = await readFractionsInline(async () => {
    if (reading.enlarged === undefined) return readPage.png;
    // The reader read the page enlarged: the fractions' redrawing works on the pixels it read (its size as the reader's, `enlargeRgb`).
    return sharp(readPage.png).resize({ width: Math.round(readPage.width * reading.enlarged), kernel: 'lanczos3' }).png().toBuffer();
  }, reading, reader, left, settings);
  if (inline?.status === 'read') return inline;
  if (reading.lookAgain !== undefined) {
    // Refused as read: a second look at the doubted glyphs that may change the maths can settle them.
    reading = await reading.lookAgain({ timeoutMs: left(), worth: mayChangeMaths });
    judged = judgeReading(reading, settings);
  }
  return judged;
}

/** A page of one row is this many character heights tall at most (a stacked fraction is 2.5 to 3.8: two glyphs, a bar and the gaps `findFractions` allows). */
const ONE_ROW = 4;

/**
 * The page read again with its stacked fractions written inline (`inlineFractions`), when its ink shows
 * fractions and it holds one row; the fractions bracketed and the reading judged as any other.
 */
async function readFractionsInline(pngOf: () => Promise<Buffer>, reading: OcrReading, reader: OcrReader, left: () => number, settings: ReadingSettings): Promise<ProblemReadingOutcome | undefined> {
  const charHeight = pageCharHeight(reading.lines);
  if (reading.ink === undefined || charHeight === undefined) return undefined;
  const fractions = findFractions(reading.ink, charHeight);
  const glyphs = reading.ink.filter((b) => b.y1 - b.y0 >= GLYPH_HEIGHT * charHeight);
  if (fractions.length === 0 || Math.max(...glyphs.map((b) => b.y1)) - Math.min(...glyphs.map((b) => b.y0)) > ONE_ROW * charHeight) return undefined;
  const raw = await sharp(await pngOf()).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  // A page the reader turned a quarter was measured in other pixels.
  if (raw.info.width !== reading.width || raw.info.height !== reading.height) return undefined;
  const redrawn = inlineFractions({ data: raw.data, width: raw.info.width, height: raw.info.height, channels: raw.info.channels }, reading.ink, fractions, charHeight);
  if (redrawn === undefined) return undefined;
  const { data, width, height, channels } = redrawn.page;
  const inlinePng = await sharp(data, { raw: { width, height, channels: channels as 3 } }).png().toBuffer();
  const bracketed = bracketFractions(await reader.read(inlinePng, { timeoutMs: left() }), redrawn.placed);
  return bracketed === undefined ? undefined : judgeReading(bracketed, settings);
}

export function judgeReading(reading: OcrReading, settings: ReadingSettings = DEFAULT_READING): ProblemReadingOutcome {
  if (!reading.lines.some((l) => l.text !== '')) return { status: 'unreadable', reason: 'no text was found in the image; please send a sharper photo or type the problem' };
  const raw = reading.lines.map((l) => l.text).join('\n');
  const foreign = [...raw].find((c) => FOREIGN_SCRIPT.test(c) && !MATHS_GREEK.test(c));
  if (foreign !== undefined) return { status: 'unreadable', reason: `the image holds text in another script ("${foreign}"); only English problems are read — please type the problem` };
  if (reading.lines.filter((l) => ITEM_LABEL.test(l.text)).length >= 2) {
    return { status: 'unreadable', reason: `the image holds several problems (${reading.lines.filter((l) => ITEM_LABEL.test(l.text)).length} numbered items); please crop it to the one you want solved` };
  }
  const doubts: string[] = [];
  const lost = reading.lines.filter((l) => l.text === '').length;
  if (lost > 0) doubts.push(`${lost} text region${lost === 1 ? '' : 's'} read as nothing (a lost term?)`);
  for (const line of reading.lines) if (line.unread !== undefined) doubts.push(`the reader read ${line.unread} on the line "${line.text.slice(0, 120)}", which cannot be written as plain maths`);
  const read = reading.lines.filter((l) => l.text !== '').map(withCharacters).map(relationsFromInk);
  const charHeight = pageCharHeight(read);
  const roots = charHeight === undefined || reading.ink === undefined ? { lines: read, roots: [], placed: new Set<OcrChar>() } : placeRoots(read, reading.ink, charHeight);
  const lines = roots.lines.map(lineGeometry);
  for (const line of lines) doubts.push(...line.doubts);
  doubts.push(...pageInkDoubts(reading, roots.roots));
  const chars: OcrChar[] = lines.flatMap((l, i) => (i === 0 ? l.chars : [{ text: '\n', confidence: 1 }, ...l.chars]));
  const resolved = resolveDoubts(chars, settings);
  if (resolved.doubt !== undefined) doubts.push(resolved.doubt);
  if (doubts.length > 0 || resolved.chars === undefined) return refusal(doubts, raw);
  const text = resolved.chars.map((c) => c.text).join('');
  const tokens = mathsTokens(resolved.chars);
  const extraction = extractMathsSignature(normaliseText(text), tokens);
  for (const run of extraction.unparsed) doubts.push(`"${run}" does not parse as maths`);
  for (const run of extraction.dangling) doubts.push(`operator ${run}: an operand was read as a word`);
  const normalised = normaliseText(text);
  // A root's radicand is what its bar spans, which a line reader does not see: "√36+31" may be √(36+31).
  // A reader of maths structure (LaTeX) says what the bar spans.
  // Roots placed from the ink (`placeRoots`) say it; any other root sign does not.
  if (roots.lines.some((l) => l.latex !== true && (l.chars.some((c) => c.text === '√' && !roots.placed.has(c)) || /v\/|sqrt/i.test(l.text) || (l.chars.length === 0 && /√/.test(l.text))))) {
    doubts.push('a root sign: how far its bar reaches cannot be read from one line');
  }
  for (const [pattern, what] of MISREAD_SHAPES) {
    const found = pattern.exec(normalised);
    if (found !== null) doubts.push(`"${found[0]}": ${what}`);
  }
  const glued = GLUED_UNKNOWN.exec(normalised);
  if (glued !== null && extraction.signature?.unknowns.includes(glued[1]!) === true) doubts.push(`"${glued[0]}": the unknown run into "for" (a space lost? what is asked cannot be read)`);
  if (extraction.signature === undefined && PROMPT_WITHOUT_MATHS.test(normaliseText(text))) doubts.push(`"${text.trim()}" asks for maths the reading does not hold (a line lost?)`);
  if (doubts.length > 0) return refusal(doubts, text);
  const confidence = tokens.length === 0 ? 1 : Math.min(...tokens.map((t) => t.confidence));
  return { status: 'read', reading: { text, tokens, confidence, reader: reading.reader } };
}

/**
 * A line of a reader that gives no per-character results (Mathpix): each character carries the line's
 * confidence, so a line read unsure is doubted like characters read unsure; it has no boxes, so the
 * geometry of the line (exponents placed from boxes) is the reader's own, as its LaTeX said.
 */
function withCharacters(line: OcrLine): OcrLine {
  if (line.chars.length > 0 || line.text === '') return line;
  return { ...line, chars: [...line.text].map((text) => ({ text, confidence: line.confidence })) };
}

/** The most doubts a refusal carries in its reading (the reason names them all). */
const MAX_DOUBTS = 50;

/** A reading refused for its doubts: the reason names them, and the reading goes with it for its owner to confirm or correct. */
const refusal = (doubts: readonly string[], text: string): ProblemReadingOutcome => ({
  status: 'unreadable',
  reason: `the maths in the image cannot be read reliably (${doubts.join('; ')}); please send a sharper photo, crop to the problem, or type it`,
  reading: { text, doubts: doubts.slice(0, MAX_DOUBTS).map((d) => d.slice(0, 500)) },
});

/**
 * Shapes printed maths does not take but misreadings do (the signature parses them): an operator run
 * into another ("5×+34" where the x was read as ×), two numbers side by side ("104 4", a digit read
 * twice), a lone letter repeating the end of the word before it ("evaluate e", read twice at a box join),
 * a word run into a root sign ("evaluatesqrt(25)+16", seed 4242: its intent is then no longer read).
 */
const MISREAD_SHAPES: readonly (readonly [RegExp, string])[] = [
  [/[*×÷/^][+*×÷/=<>≤≥^]|[+-][+*×÷/=<>≤≥^]/, 'two operators in a row (a term lost?)'],
  [/\d \d/, 'two numbers side by side (a digit read twice, or an operator lost?)'],
  [/(\p{L}) \1(?!\p{L})/u, 'a letter read twice'],
  // Printed maths sets a root sign apart from the word before it: a word run into it lost a space.
  [/\p{L}{2}sqrt\(/u, 'a word run into a root sign (a space lost?)'],
];

/**
 * "for" run into a letter ("solve forn: 2n+29=55"): PP-OCR drops a word space before a lone letter. What
 * the problem asks for is then prose, not the unknown, so the reading's maths is not the page's. Doubted
 * when the letter is one of the maths' unknowns (refused, never guessed apart: "form" is a word).
 */
const GLUED_UNKNOWN = /\bfor(\p{L})(?!\p{L})/u;

/** An instruction with nothing after it to act on: what is left when the maths line was not read. */
const PROMPT_WITHOUT_MATHS = new RegExp(`(?:^|\\s)(?:${INSTRUCTIONS.join('|')})(?:\\s+for\\s+[a-z])?\\s*:?\\s*$`);

/**
 * A doubted character's readings must hold at least this much of its probability, or what it is cannot
 * be said; unless it was read at `SURE_ENOUGH` or more: the rest is then spread under the reader's
 * alternative floor (2 %) over its thousands of classes, no one of them a reading.
 */
const COVERAGE = 0.95;
const SURE_ENOUGH = 0.9;
/** A reading of the doubted characters this much less probable than the likeliest is not weighed (its share is too small to matter). */
const NEGLIGIBLE = 0.002;
/** At most this many readings of a page are weighed; more and the reading is refused. */
const MAX_READINGS = 512;

/**
 * The reader's doubts weighed against the maths (issue 25). A character read below the bar is not
 * refused outright: its readings (the reader's own alternatives, '' for none) are tried together with
 * the other doubted characters', each combination weighted by the reader's probabilities. Readings that
 * do not parse are not what was printed. The reading stands when the readings that give other maths or
 * other digits and operators hold at most `maxOtherMaths` of the probability of those that parse: spaces
 * and "2x +" against "2x+" thus never refuse a reading; "≥" behind a ">" read at 0.9, "12 34" against
 * "1234", or a minus that may be lost, do. Doubts whose readings do not cover the character's probability refuse.
 */
function resolveDoubts(asRead: readonly OcrChar[], settings: ReadingSettings): { chars?: OcrChar[]; doubt?: string } {
  // An instruction word's doubted letters read as the word (its intent is prose, not maths to weigh).
  const words = instructionWordLetters(asRead, (c) => c.confidence < settings.minCharConfidence);
  const chars = asRead.map((c, i) => (words.has(i) ? { ...c, text: words.get(i)! } : c));
  const doubted = chars.map((c, i) => (c.confidence < settings.minCharConfidence && !words.has(i) && mayChangeMaths(chars, i) ? i : -1)).filter((i) => i >= 0);
  const sure = chars.map((c, i) => (doubted.includes(i) ? c : c.text === '' ? undefined : c));
  if (doubted.length === 0) return { chars: sure.filter((c): c is OcrChar => c !== undefined) };
  const nameOf = (c: OcrChar): string => (c.text === '' ? `"${c.alternatives?.[0]?.text ?? ''}" ${(c.alternatives?.[0]?.confidence ?? 0).toFixed(2)}` : `"${c.text}" ${c.confidence.toFixed(2)}`);
  const weighed = doubted.map((i) => [{ text: chars[i]!.text, confidence: chars[i]!.confidence }, ...(chars[i]!.alternatives ?? [])]);
  const uncovered = doubted.filter((i, k) => chars[i]!.confidence < SURE_ENOUGH && weighed[k]!.reduce((sum, o) => sum + o.confidence, 0) < COVERAGE);
  if (uncovered.length > 0) return { doubt: `read unsure: ${uncovered.map((i) => nameOf(chars[i]!)).join(', ')}` };
  // A character with ink of its own is some character: "none" is no reading of it. Readings that differ
  // only in case or width ("W"/"w", "＋"/"+") are one reading.
  const options = weighed.map((o, k) => mergeSpellings(o.filter((x) => !(x.text === '' && chars[doubted[k]!]!.ownInk === true))));
  const likeliest = options.reduce((p, o) => p * Math.max(0, ...o.map((x) => x.confidence)), 1);
  let readings: { picks: number[]; probability: number }[] = [{ picks: [], probability: 1 }];
  for (const [k, o] of options.entries()) {
    // The best the characters still to pick can do: a partial reading that cannot reach the bar is dropped.
    const rest = options.slice(k + 1).reduce((p, later) => p * Math.max(0, ...later.map((x) => x.confidence)), 1);
    readings = readings.flatMap((r) => o.map((x, j) => ({ picks: [...r.picks, j], probability: r.probability * x.confidence }))).filter((r) => r.probability * rest >= NEGLIGIBLE * likeliest);
    if (readings.length > MAX_READINGS) return { doubt: `read unsure: ${doubted.map((i) => nameOf(chars[i]!)).join(', ')} (too many ways to read it)` };
  }
  const maths = new Map<string, { chars: OcrChar[]; probability: number; best: number; picks: number[] }>();
  for (const r of readings) {
    const candidate = sure.map((c, i) => {
      const k = doubted.indexOf(i);
      return k < 0 ? c : { ...c, text: options[k]![r.picks[k]!]!.text, confidence: options[k]![r.picks[k]!]!.confidence };
    });
    const picked = candidate.filter((c): c is OcrChar => c !== undefined && c.text !== '');
    const text = normaliseText(picked.map((c) => c.text).join(''));
    const extraction = extractMathsSignature(text, undefined, undefined, settings.mathsBudget);
    // A reading the engine could not read in its budget (a busy moment) is not known to be no maths:
    // skipping it would let a rival that parses win unweighed, so the doubt is not settled.
    if (extraction.unchecked === true) return { doubt: `read unsure: ${doubted.map((i) => nameOf(chars[i]!)).join(', ')} (a reading of them could not be checked against the maths in time)` };
    // A word problem has no signature; its reading still stands or falls by its digits and operators.
    if (extraction.unparsed.length > 0 || extraction.dangling.length > 0 || digitAfterLetter(text) || MISREAD_SHAPES.some(([shape]) => shape.test(text))) continue;
    const key = `${extraction.signature?.hash ?? 'no maths'} ${text.replace(/[^0-9+\-*/=<>^×÷]/g, '')}`;
    const seen = maths.get(key);
    if (seen === undefined) maths.set(key, { chars: picked, probability: r.probability, best: r.probability, picks: r.picks });
    else {
      seen.probability += r.probability;
      if (r.probability > seen.best) Object.assign(seen, { chars: picked, best: r.probability, picks: r.picks });
    }
  }
  const named = doubted.map((i) => nameOf(chars[i]!)).join(', ');
  if (maths.size === 0) return { doubt: `read unsure: ${named} (no reading of them is maths)` };
  const ranked = [...maths.values()].sort((a, b) => b.probability - a.probability);
  const winner = ranked[0]!;
  const total = ranked.reduce((sum, m) => sum + m.probability, 0);
  const overruled = doubted.flatMap((i, k) => {
    const pick = options[k]![winner.picks[k]!]!;
    return sameSpelling(pick.text, chars[i]!.text) ? [] : [{ char: chars[i]!, pick }];
  });
  const unweighed = unweighedRivals(winner.best, overruled);
  const other = (total - winner.probability + unweighed) / (total + unweighed);
  if (other > settings.maxOtherMaths) {
    const why =
      unweighed > total - winner.probability
        ? `the maths would have to read ${overruled.map((o) => `"${o.char.text}" as "${o.pick.text}" (${o.pick.confidence.toFixed(3)}, a reading the reader did not list up to ${(o.char.unlisted ?? 0).toFixed(3)})`).join(', ')}: ${(100 * other).toFixed(0)} % may be other maths`
        : `${maths.size} different maths fit; the others hold ${(100 * other).toFixed(0)} %`;
    return { doubt: `read unsure: ${named} (${why})` };
  }
  return { chars: winner.chars };
}

const sameSpelling = (a: string, b: string): boolean => a.normalize('NFKC').toLowerCase() === b.normalize('NFKC').toLowerCase();

/**
 * The probability of readings nobody weighed that rival the winning one where the maths overruled the
 * reader (issue 25): at each place the winner reads otherwise than the reader did, the winner with that
 * place read as the reader's likeliest unlisted reading instead (`unlisted`, below the reader's listing
 * floor). Such a reading was never tried against the maths, so it may parse, and as other maths: it counts
 * against the winner like the readings that were weighed. The maths picking a runner-up the reader gave
 * a fair share ("÷" at 0.28 behind ":" at 0.52, nothing unlisted above 0.003) stands; the maths picking
 * a leftover ("α" at 0.027 behind "c" at 0.72, the printed "x" unlisted at 0.013) is a guess among
 * leftovers, as likely the reading never listed. Where the reader's own reading stands, its unlisted
 * readings are what its confidence already weighs (`minCharConfidence`, `COVERAGE`).
 */
function unweighedRivals(best: number, overruled: readonly { readonly char: OcrChar; readonly pick: OcrAlternative }[]): number {
  return overruled.reduce((sum, { char, pick }) => sum + (best * (char.unlisted ?? 0)) / Math.max(pick.confidence, Number.EPSILON), 0);
}

function mergeSpellings(options: readonly OcrAlternative[]): OcrAlternative[] {
  const merged = new Map<string, OcrAlternative>();
  for (const o of options) {
    const key = o.text.normalize('NFKC').toLowerCase();
    const seen = merged.get(key);
    merged.set(key, seen === undefined ? o : { text: seen.text, confidence: seen.confidence + o.confidence });
  }
  return [...merged.values()];
}

/**
 * Ink around the lines that the reading does not account for (issue 25): a glyph-sized blob no read
 * line's box takes in (a root sign or an exponent the detector left out: "√49 − 4" read "49 − 4"), or a
 * blob whose columns enclose other glyphs (a root sign's bar over its radicand). Either is maths the
 * text does not hold, so the reading is refused.
 */
function pageInkDoubts(reading: OcrReading, roots: readonly OcrBox[]): string[] {
  const lines = reading.lines.filter((l) => l.text !== '');
  const charHeight = pageCharHeight(lines);
  if (reading.ink === undefined || charHeight === undefined) return [];
  // A root placed from the ink is read: its blob encloses its radicand by design.
  const ink = reading.ink.filter((b) => !roots.includes(b));
  const doubts: string[] = [];
  const inside = (b: OcrBox, line: OcrBox): number => (Math.max(0, Math.min(b.x1, line.x1) - Math.max(b.x0, line.x0)) * Math.max(0, Math.min(b.y1, line.y1) - Math.max(b.y0, line.y0))) / Math.max(1, (b.x1 - b.x0) * (b.y1 - b.y0));
  const unread = ink.find((b) => Math.max(b.y1 - b.y0, b.x1 - b.x0) >= GLYPH_HEIGHT * charHeight && !lines.some((l) => inside(b, l.box) >= READ_SHARE));
  if (unread !== undefined) doubts.push(`ink at x ${unread.x0}–${unread.x1}, y ${unread.y0}–${unread.y1} lies outside every line read (a root sign or an exponent left out?)`);
  const enclosing = enclosingInk(ink, charHeight);
  if (enclosing !== undefined) doubts.push(`ink at x ${enclosing.x0}–${enclosing.x1} encloses other glyphs (a root sign?)`);
  const cut = cutMaths(reading, lines, charHeight);
  if (cut !== undefined) doubts.push(cut);
  return doubts;
}

/** The page's character height: the upper quartile of its digits' and letters' heights (capitals, digits and ascenders). */
function pageCharHeight(lines: readonly OcrLine[]): number | undefined {
  const heights = lines.flatMap((l) => l.chars.filter((c) => c.box !== undefined && /^[0-9A-Za-z]$/.test(c.text)).map((c) => c.box!.y1 - c.box!.y0)).sort((a, b) => a - b);
  return heights[Math.floor(heights.length * 0.75)];
}

/** Ink this large (in character heights) is a stroke of a glyph, not a speck of noise. */
const STROKE = 0.2;

/**
 * Ink cut by the picture's edge beside the maths (issue 25, a cropped photo): the maths may go on past
 * the edge ("8² + 3³" cropped through its "³" reads "8² + 3"), so what was read is not all of it. Ink cut
 * beside prose stands where a character was read for it ("Solve" losing half its "S", still read "S"); a
 * cut letter read as nothing changes the words, and the maths signature with them ("Evaluate" cropped
 * through its "E" read "valuate", issue 25 seed 6007: a wrong reading).
 */
function cutMaths(reading: OcrReading, lines: readonly OcrLine[], charHeight: number): string | undefined {
  const chars = lines.flatMap((l) => l.chars.filter((c): c is OcrChar & { box: OcrBox } => c.box !== undefined && c.text.trim() !== ''));
  const gap = (a: OcrBox, b: OcrBox): number => Math.hypot(Math.max(0, a.x0 - b.x1, b.x0 - a.x1), Math.max(0, a.y0 - b.y1, b.y0 - a.y1));
  for (const blob of reading.ink ?? []) {
    const edge = blob.x0 <= 0 ? 'left' : blob.x1 >= reading.width ? 'right' : blob.y0 <= 0 ? 'top' : blob.y1 >= reading.height ? 'bottom' : undefined;
    if (edge === undefined || Math.max(blob.x1 - blob.x0, blob.y1 - blob.y0) < STROKE * charHeight) continue;
    const nearest = chars.reduce<(OcrChar & { box: OcrBox }) | undefined>((best, c) => (best === undefined || gap(c.box, blob) < gap(best.box, blob) ? c : best), undefined);
    if (nearest === undefined || gap(nearest.box, blob) > charHeight || MATHS_CHAR.test(nearest.text)) {
      return `the picture's ${edge} edge cuts through ink${nearest === undefined ? '' : ` beside "${nearest.text}"`} (the maths may go on past it; please include the whole problem)`;
    }
    const overlaps = (c: OcrBox): boolean => Math.min(c.x1, blob.x1) > Math.max(c.x0, blob.x0) && Math.min(c.y1, blob.y1) > Math.max(c.y0, blob.y0);
    if (!chars.some((c) => overlaps(c.box))) return `the picture's ${edge} edge cuts through a glyph no character was read for, beside "${nearest.text}" (a letter lost? please include the whole problem)`;
  }
  return undefined;
}

/** A blob counts as read when at least this share of its box lies in one read line's box (detection boxes may clip a glyph's edge). */
const READ_SHARE = 0.5;

/** A digit right after a lone letter or two ("x2", "v64"): printed maths writes coefficients first, so a flattened exponent or a misread sign. */
function digitAfterLetter(text: string): boolean {
  return /(?<!\p{L}\p{L})\p{L}\d/u.test(text);
}

/**
 * Whether reading the character at `i` otherwise may change the maths: it or one of its alternatives is
 * a maths character (a ":" whose alternative is "÷"), or it sits in a word that carries maths, or it is a
 * space between two maths words (a space misread there can join or split terms). Letters of prose words
 * count too: "for y" against "for x" asks for another unknown.
 */
function mayChangeMaths(chars: readonly OcrChar[], i: number): boolean {
  const c = chars[i]!;
  if ([c.text, ...(c.alternatives ?? []).map((a) => a.text)].some((t) => MATHS_CHAR.test(t))) return true;
  if (c.text.trim() === '' && c.text !== '') return MATHS_CHAR.test(chars[i - 1]?.text ?? '') && MATHS_CHAR.test(chars[i + 1]?.text ?? '');
  return /\p{L}/u.test([c.text, ...(c.alternatives ?? []).map((a) => a.text)].join('')) || c.text === '';
}

/** Whitespace-separated words holding maths, each with its weakest character's probability. */
function mathsTokens(chars: readonly OcrChar[]): ReadToken[] {
  const tokens: ReadToken[] = [];
  let word: OcrChar[] = [];
  const flush = (): void => {
    if (word.some((c) => MATHS_CHAR.test(c.text))) tokens.push({ text: word.map((c) => c.text).join(''), confidence: Math.min(...word.map((c) => c.confidence)) });
    word = [];
  };
  for (const c of chars) {
    if (c.text.trim() === '') flush();
    else word.push(c);
  }
  flush();
  return tokens;
}
