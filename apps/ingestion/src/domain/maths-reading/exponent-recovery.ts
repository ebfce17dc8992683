import sharp from 'sharp';
import type { GrayImage } from '../gray-image.js';
import type { OcrBox, OcrEngine, OcrResult, OcrSymbol, OcrWord } from '../ocr-pool.js';
import { lineBody } from './baseline-words.js';
import { atXHeight } from './letter-heights.js';
import { isMathsWord } from './token-checks.js';
import { type LineInk, lineInk, type RaisedGroup, raisedGroups, union } from './raised-ink.js';
import { binarised, cropForReading } from './second-pass-input.js';

/** An exponent read from the page: where its ink is, and its digits. */
export interface ReadExponent {
  readonly group: RaisedGroup;
  readonly digits: string;
  /** 0..100, as tesseract's. */
  readonly confidence: number;
}

/** A lone letter with a superscript's stand-in glued to it ("x?", "(x'"): an unknown whose exponent was misread. */
const UNKNOWN_WITH_STAND_IN = /(?:^|[^A-Za-z])[A-Za-z][?'"’”*]/;
/** How far above and below a line's words the band searched for its exponents reaches, in line heights. */
const BAND = { above: 0.5, below: 0.15, before: 0.5, after: 1 } as const;
/** An exponent read with less confidence than this (0..100; the reading's bar) is read again from a binarised crop. */
const SURE_EXPONENT = 60;
/** How an exponent's crop is enlarged before it is read: small digits read best near full size. */
export interface ExponentScale {
  /** Times the crop's height... */
  readonly enlarge: number;
  /** ...and at least this many pixels high. */
  readonly minHeight: number;
}

export const EXPONENT_SCALE: ExponentScale = { enlarge: 3, minHeight: 64 };
/** Another scale, to read an exponent again when the two passes read it differently (see `readMaths`). */
export const SECOND_EXPONENT_SCALE: ExponentScale = { enlarge: 5, minHeight: 100 };

/**
 * Exponents back into a reading, from the ink: tesseract's eng model has no superscript digits, so "2¹⁰"
 * comes out as "2'°", "210" or "2", with character boxes placed by what it decoded rather than by the
 * pixels. So each line holding maths is cut into connected components of ink, the raised runs after a
 * full-size glyph are found by their shape (`raisedGroups`), and each run is cropped alone (other ink
 * painted out), enlarged and read as one word of digits. A run is spliced in as `^digits` after the
 * character read over its base, in place of whatever was read over the run, only when it reads as
 * exactly as many digits as it has glyphs; otherwise the reading is left as it was and the checks judge
 * it (a lost exponent is then refused). The word's confidence becomes that of its remaining characters
 * and of the exponent: the misread exponent is what made tesseract unsure of it.
 */
export async function recoverExponents(
  page: Buffer,
  ocr: OcrResult,
  engine: Pick<OcrEngine, 'recognise'>,
  scale: ExponentScale = EXPONENT_SCALE,
): Promise<{ readonly ocr: OcrResult; readonly recovered: number }> {
  const words = ocr.words ?? [];
  // A line with digits, or with an unknown whose exponent was read as a stand-in: "x? −" ends a line
  // whose only maths is "x²" at times, with no digit on it.
  const mathsLines = [...new Set(words.filter((w) => (isMathsWord(w) && /[0-9]/.test(w.text)) || UNKNOWN_WITH_STAND_IN.test(w.text)).map((w) => w.line))];
  if (mathsLines.length === 0) return { ocr, recovered: 0 };
  const { data, info } = await sharp(page).grayscale().raw().toBuffer({ resolveWithObject: true });
  const gray: GrayImage = { width: info.width, height: info.height, data };
  let rewritten: OcrWord[] = [...words];
  let recovered = 0;
  for (const line of mathsLines) {
    const lineWords = words.filter((w) => w.line === line);
    const box = union(lineWords.map((w) => w.bbox));
    const h = box.y1 - box.y0 + 1;
    const ink = lineInk(gray, { x0: box.x0 - BAND.before * h, x1: box.x1 + BAND.after * h, y0: box.y0 - BAND.above * h, y1: box.y1 + BAND.below * h });
    if (ink === undefined) continue;
    const body = lineBody(ink.components);
    for (const group of raisedGroups(ink)) {
      const read = await readExponent(gray, ink, group, engine, scale);
      if (read === undefined) continue;
      const spliced = spliceExponent(rewritten, line, read, body !== undefined && atXHeight(group.base.box, body));
      if (spliced === undefined) continue;
      rewritten = spliced;
      recovered += 1;
    }
  }
  if (recovered === 0) return { ocr, recovered };
  const text = [...new Set(rewritten.map((w) => w.line))].map((l) => rewritten.filter((w) => w.line === l).map((w) => w.text).join(' ')).join('\n');
  return { ocr: { ...ocr, text, words: rewritten }, recovered };
}

/**
 * The exponent's digits: its glyphs cropped with a margin, every other blob of ink painted out (the
 * base's edge, the next operator), enlarged and read as one word with only digits allowed. Undefined
 * unless it reads as one digit per glyph.
 */
export async function readExponent(
  page: GrayImage,
  ink: LineInk,
  group: RaisedGroup,
  engine: Pick<OcrEngine, 'recognise'>,
  scale: ExponentScale = EXPONENT_SCALE,
): Promise<ReadExponent | undefined> {
  const gh = group.box.y1 - group.box.y0 + 1;
  const pad = Math.round(gh * 0.35) + 2;
  const x0 = Math.max(ink.region.x0, group.box.x0 - pad);
  const y0 = Math.max(ink.region.y0, group.box.y0 - pad);
  const x1 = Math.min(ink.region.x1, group.box.x1 + pad);
  const y1 = Math.min(ink.region.y1, group.box.y1 + pad);
  const width = x1 - x0 + 1;
  const height = y1 - y0 + 1;
  if (width < 4 || height < 4) return undefined;
  const own = new Set(group.components.flatMap((c) => c.labels));
  const regionWidth = ink.region.x1 - ink.region.x0 + 1;
  const labelAt = (x: number, y: number): number => {
    if (x < ink.region.x0 || x > ink.region.x1 || y < ink.region.y0 || y > ink.region.y1) return 0;
    return ink.labels[(y - ink.region.y0) * regionWidth + (x - ink.region.x0)] ?? 0;
  };
  // Paper: the crop's lightest tone. A pixel of another blob, or next to one (its antialiased edge), becomes paper.
  let paper = 0;
  for (let y = y0; y <= y1; y += 1) for (let x = x0; x <= x1; x += 1) paper = Math.max(paper, page.data[y * page.width + x] ?? 0);
  const crop = new Uint8Array(width * height);
  for (let y = y0; y <= y1; y += 1) {
    for (let x = x0; x <= x1; x += 1) {
      let foreign = false;
      for (let dy = -1; dy <= 1 && !foreign; dy += 1) {
        for (let dx = -1; dx <= 1 && !foreign; dx += 1) {
          const l = labelAt(x + dx, y + dy);
          foreign = l !== 0 && !own.has(l);
        }
      }
      crop[(y - y0) * width + (x - x0)] = foreign ? paper : Math.round(page.data[y * page.width + x] ?? paper);
    }
  }
  // grayscale(): sharp would otherwise hand a one-channel raw input back as three channels.
  const enlarged = await sharp(crop, { raw: { width, height, channels: 1 } })
    .grayscale()
    .resize({ height: Math.max(scale.minHeight, height * scale.enlarge), kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: enlarged.info.width, height: enlarged.info.height, channels: 1 as const } };
  const read = async (gray: Uint8Array, segmentation: 'word' | 'char' = 'word'): Promise<ReadExponent | undefined> => {
    const png = await sharp(gray, raw).extend({ top: 24, bottom: 24, left: 24, right: 24, background: '#ffffff' }).png().toBuffer();
    const result = await engine.recognise(png, { segmentation, charWhitelist: '0123456789' });
    const digits = result.text.replace(/\s+/g, '');
    if (!/^\d+$/.test(digits) || digits.length !== group.components.length) return undefined;
    return { group, digits, confidence: result.words?.[0]?.confidence ?? result.confidence };
  };
  // A noisy photo's grey crop can read as another digit with a score near 0; cut to black and white, its
  // noise goes. The binarised crop is read only then (on clean pages it costs exponents their confidence).
  const grey = await read(cropForReading(enlarged.data));
  if (grey !== undefined && grey.confidence >= SURE_EXPONENT) return grey;
  const cut = await read(binarised(enlarged.data));
  const best = cut !== undefined && (grey === undefined || cut.confidence > grey.confidence) ? cut : grey;
  if (best === undefined || best.confidence >= SURE_EXPONENT || group.components.length !== 1) return best;
  // A lone superscript digit scores low read as a word (a serif 4: 31-48 %, read right every time); read
  // as one character it is asked again another way. The same digit twice counts as two readings that
  // agree (as the two passes do in `readMaths`); another digit leaves the weaker reading to the bar.
  const alone = await read(cropForReading(enlarged.data), 'char');
  if (alone?.digits !== best.digits) return best;
  return { ...best, confidence: 100 * (1 - (1 - best.confidence / 100) * (1 - alone.confidence / 100)) };
}

const centreX = (s: OcrSymbol): number => (s.bbox.x0 + s.bbox.x1) / 2;
const centreY = (s: OcrSymbol): number => (s.bbox.y0 + s.bbox.y1) / 2;
const overlapX = (a: OcrBox, b: OcrBox): number => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);

/** What tesseract's eng model makes of superscript digits: digits, degree signs, quotes, %, ?, !, *, ® (a serif ³). */
const STAND_IN = /^[0-9°'"’”%?!*®©¹²³⁰⁴⁵⁶⁷⁸⁹]$/;

/**
 * The words with an exponent spliced in. The character read over the base is the one whose box overlaps
 * the base's ink most (the last of equals: a neighbour boxed over it is not mistaken for it). The
 * characters read after it that stand in for an exponent (`STAND_IN`) and start before the exponent's
 * ink ends are dropped, as are characters of other lines (tesseract makes a line of a raised run at
 * times) lying over the exponent; `^` and the digits, boxed on their glyphs, follow the base. Character
 * boxes are where the LSTM decoded them, not the ink, so they are compared with the ink loosely.
 * Undefined when no character of the line was read over the base, or it cannot carry an exponent (an
 * operator, a stand-in): then the exponent cannot be placed.
 */
export function spliceExponent(words: readonly OcrWord[], line: number, exponent: ReadExponent, baseAtXHeight = false): OcrWord[] | undefined {
  const { group, digits } = exponent;
  const base = group.base.box;
  const tolerance = 0.1 * (base.y1 - base.y0 + 1);
  const onLine = words.flatMap((w, wi) => (w.line === line ? w.symbols.map((s, si) => ({ wi, si, s })) : []));
  let anchorAt = -1;
  onLine.forEach(({ s }, i) => {
    const o = overlapX(s.bbox, base);
    if (o > 0 && (anchorAt < 0 || o >= overlapX(onLine[anchorAt]?.s.bbox ?? s.bbox, base))) anchorAt = i;
  });
  const anchor = onLine[anchorAt];
  if (anchor === undefined || !canCarryExponent(anchor.s, words[anchor.wi], baseAtXHeight)) return undefined;
  const dropped = new Set<OcrSymbol>();
  for (const { s } of onLine.slice(anchorAt + 1)) {
    if (!STAND_IN.test(s.text) || s.bbox.x0 >= group.box.x1 + tolerance) break;
    dropped.add(s);
  }
  for (const w of words) {
    if (w.line === line) continue;
    for (const s of w.symbols) {
      if (centreX(s) >= group.box.x0 - tolerance && centreX(s) <= group.box.x1 + tolerance && centreY(s) >= group.box.y0 - tolerance && centreY(s) <= group.box.y1 + tolerance) dropped.add(s);
    }
  }
  const raised: OcrSymbol[] = [
    { text: '^', bbox: { x0: group.box.x0, y0: group.box.y0, x1: group.box.x0, y1: group.box.y0 }, confidence: exponent.confidence },
    ...[...digits].map((d, i) => ({ text: d, bbox: group.components[i]?.box ?? group.box, confidence: exponent.confidence })),
  ];
  const out: OcrWord[] = [];
  words.forEach((w, wi) => {
    const kept = w.symbols.filter((s) => !dropped.has(s));
    if (kept.length === w.symbols.length && wi !== anchor.wi) {
      out.push(w);
      return;
    }
    const at = wi === anchor.wi ? kept.indexOf(anchor.s) : -1;
    const symbols = at < 0 ? kept : [...kept.slice(0, at + 1), ...raised, ...kept.slice(at + 1)];
    if (symbols.length === 0) return;
    out.push({ ...w, text: symbols.map((s) => s.text).join(''), confidence: confidenceOf(w, symbols, exponent.confidence), symbols });
  });
  return out;
}

/** Letters tesseract reads in place of digits (see `confusion`): an exponent after one is a misread number's. */
const DIGIT_LOOKALIKE = /^[sSlIoOzZbBgq|]$/;

/**
 * Whether a character can carry an exponent: a digit, a closing bracket, or an unknown (a letter standing
 * alone in its word, "x²"; not a letter of a word, nor one tesseract makes of a digit: "g⁴" is "6⁴" misread,
 * unless the base's ink stands at x-height, `baseAtXHeight`, as a lower-case letter's does and no digit's:
 * the "s" of "m/s²").
 */
function canCarryExponent(symbol: OcrSymbol, word: OcrWord | undefined, baseAtXHeight: boolean): boolean {
  if (/^[0-9)\]]$/.test(symbol.text)) return true;
  if (!/^[A-Za-z]$/.test(symbol.text) || (DIGIT_LOOKALIKE.test(symbol.text) && !baseAtXHeight) || word === undefined) return false;
  const at = word.symbols.indexOf(symbol);
  return ![word.symbols[at - 1], word.symbols[at + 1]].some((s) => s !== undefined && /^[A-Za-z]$/.test(s.text));
}

/**
 * A rewritten word's confidence: its weakest character's, when tesseract reported them (the word's own
 * score mostly measured the exponent it misread), else the word's; never above the exponent's reading.
 */
function confidenceOf(word: OcrWord, symbols: readonly OcrSymbol[], exponent: number): number {
  const scores = symbols.flatMap((s) => (s.confidence === undefined ? [] : [s.confidence]));
  return Math.min(exponent, ...(scores.length === symbols.length ? scores : [word.confidence]));
}
