import type { OcrBox, OcrChar, OcrLine } from '@openpaw/providers/ocr';

/**
 * What a line reader's characters mean once their boxes are measured (issue 25): a line reader reads
 * "x²" as "x2" (the raised digits on the line), and a stacked fraction "3 over 4" as "34". The boxes
 * tell: an exponent's ink ends well above its neighbours' baseline and is smaller; a fraction's or a
 * root's ink stands taller than the line's characters. Exponents are rewritten ("x^2"); what cannot be
 * written on one line is a doubt, so the reading is refused rather than solved as something else.
 */
export interface LineGeometry {
  /** The line's text with raised digit runs written as exponents. */
  readonly text: string;
  /** Characters as in `text` (an exponent's "^", placed by the ink, has confidence 1). */
  readonly chars: readonly OcrChar[];
  /** Structure the line cannot carry as text: stacked or tall ink (a fraction, a root, a matrix). */
  readonly doubts: readonly string[];
}

/** A digit counts as raised when its ink ends this far (in character heights) above the local baseline. */
export const RAISED_BY = 0.25;
/** ... and is at most this tall, against the line's character height (HTML's <sup> prints at 83 %). */
export const RAISED_MAX_HEIGHT = 0.92;
/** Ink taller than this many character heights is a structure (a stacked fraction, a radical, a big bracket). */
export const TALL_INK = 1.45;
/** Neighbours on each side whose baseline a character is judged against. */
const NEIGHBOURS = 4;

const SITS_ON_BASELINE = /^[0-9A-Zabcdefhiklmnorstuvwxz]$/;
/** A box that shows where a character's ink sits: one the reader placed by its columns alone (`ownInk: false`) does not. */
const inked = (c: OcrChar): c is OcrChar & { box: OcrBox } => c.box !== undefined && c.ownInk !== false;
/** Characters printed off the baseline by design: operators on the maths axis, marks at the top. */
const OFF_BASELINE = /^[+\-−×÷=<>≤≥≠~*^·:'"`‘’“”°²³¹]$/;

const height = (box: OcrBox): number => box.y1 - box.y0;

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The characters' ink height: the upper quartile of digits' and letters' heights (capitals, digits and ascenders). */
export function characterHeight(chars: readonly OcrChar[]): number | undefined {
  const heights = chars.filter((c) => c.box !== undefined && /^[0-9A-Za-z]$/.test(c.text)).map((c) => height(c.box!));
  if (heights.length === 0) return undefined;
  const sorted = heights.sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length * 0.75)];
}

export function lineGeometry(line: OcrLine): LineGeometry {
  const chars = line.chars;
  const charHeight = characterHeight(chars);
  if (charHeight === undefined || chars.some((c) => c.box === undefined && c.text.trim() !== '')) return { text: line.text, chars, doubts: [] };
  const doubts: string[] = [];
  const raised = chars.map((c, i) => {
    if (!/^[0-9]$/.test(c.text) || !inked(c)) return false;
    const baseline = baselineAround(chars, i);
    if (baseline === undefined) return false;
    return baseline - c.box.y1 > RAISED_BY * charHeight && height(c.box) <= RAISED_MAX_HEIGHT * charHeight;
  });
  // A baseline judged from raised neighbours is no baseline: each raised digit must follow a character on the line.
  for (const [i, c] of chars.entries()) {
    // Only a box of the character's own ink stands tall: one placed by its columns alone is the line's
    // height (a minus too faint for the ink cut in a shrunk copy, issue 25: "-" standing "1.6 characters").
    if (inked(c) && c.text.trim() !== '' && !inProseWord(chars, i) && height(c.box) > TALL_INK * charHeight) doubts.push(`"${c.text}" stands ${(height(c.box) / charHeight).toFixed(1)} characters tall (a stacked fraction or a root?)`);
    if (raised[i] === true && (i === 0 || chars[i - 1]!.text.trim() === '')) doubts.push(`"${c.text}" is raised with nothing before it (an exponent of what?)`);
  }
  const decided = chars.map((c, i) => (raised[i] === true || raisedSuperscript(chars, i, charHeight) ? poolExponentSpellings(c) : letterOrTimes(chars, i, charHeight, raised)));
  for (const [i, c] of decided.entries()) {
    // What the line reader read on the line but was printed above or below it is other maths.
    const shift = raised[i] === true || !inked(c) || OFF_BASELINE.test(c.text) || c.text.trim() === '' || (inProseWord(decided, i) && !nextToDigit(decided, i)) ? undefined : offBaseline(decided, i, raised, charHeight);
    if (shift !== undefined) doubts.push(`"${c.text}" is printed ${shift} the line (an exponent or index the line cannot place?)`);
    const next = decided[i + 1];
    // Printed maths puts a coefficient before its letter ("64v"), never after: "x2" is a flattened "x²",
    // "v64" a root sign read as a letter.
    if (/^\p{L}$/u.test(c.text) && !inProseWord(decided, i) && raised[i + 1] !== true && /^[0-9]$/.test(next?.text ?? '')) doubts.push(`"${c.text}${next!.text}": a digit right after a letter (a flattened exponent or a root sign?)`);
  }
  const unread = unclaimedInk(line.inkBoxes ?? [], chars, charHeight);
  if (unread !== undefined) doubts.push(`ink at x ${unread.x0}–${unread.x1} was read as no character (a sign lost?)`);
  const enclosing = enclosingInk(line.inkBoxes ?? [], charHeight);
  if (enclosing !== undefined) doubts.push(`ink at x ${enclosing.x0}–${enclosing.x1} encloses other glyphs (a root sign?)`);
  const stacked = stackedInk(line.inkBoxes ?? [], charHeight);
  if (stacked !== undefined) doubts.push(`glyphs stacked one above another at x ${stacked.x0}–${stacked.x1} (a stacked fraction?)`);
  const out: OcrChar[] = [];
  for (const [i, c] of decided.entries()) {
    // The "^" is the ink's verdict, not the recogniser's: the digits after it carry their own doubts.
    if (raised[i] === true && raised[i - 1] !== true) out.push({ text: '^', confidence: 1 });
    out.push(c);
    // Text after an exponent on the line must not run into it: "x^2y" is x²·y, so close the exponent.
    if (raised[i] === true && raised[i + 1] !== true && /^[0-9A-Za-z(]$/.test(chars[i + 1]?.text ?? '')) out.push({ text: ' ', confidence: c.confidence });
  }
  return { text: out.map((c) => c.text).join(''), chars: out, doubts };
}

/**
 * The baseline around character `i`: the median bottom of its neighbours that sit on it, judged only from
 * boxes that show their own glyph's ink (`inked`, `ownGlyph`); `skip` leaves out more of them.
 */
function baselineAround(chars: readonly OcrChar[], i: number, skip: (j: number) => boolean = () => false): number | undefined {
  const from = Math.max(0, i - NEIGHBOURS);
  const bottoms = chars.slice(from, i + NEIGHBOURS + 1).flatMap((n, k) => (from + k !== i && inked(n) && SITS_ON_BASELINE.test(n.text) && ownGlyph(chars, from + k) && !skip(from + k) ? [n.box.y1] : []));
  return median(bottoms);
}

/**
 * Whether character `j`'s box is its glyph's ink alone: no other character is centred in its columns. Glyphs
 * that touch are one blob of ink, and each character on it takes the whole blob (issue 25: DejaVu Serif's
 * "fy" of "Simplify" is one blob, so its "f" ends at the "y"'s descender and, taken as sitting on the
 * baseline, made the coefficient after it look raised: "Simplify: 2x⁴" refused as "2" printed above the line).
 */
function ownGlyph(chars: readonly OcrChar[], j: number): boolean {
  const box = chars[j]!.box!;
  return !chars.some((o, k) => k !== j && o.text.trim() !== '' && o.box !== undefined && (o.box.x0 + o.box.x1) / 2 >= box.x0 && (o.box.x0 + o.box.x1) / 2 < box.x1);
}

/**
 * Whether a character the line reader put on the line was printed above or below it: its ink ends a
 * quarter character height above its neighbours' baseline (a raised exponent, letter or too large to
 * place as one), or a digit's ink ends that far below it (an index). The line reader reads both as
 * characters on the line, which is other maths.
 */
function offBaseline(chars: readonly OcrChar[], i: number, raised: readonly boolean[], charHeight: number): 'above' | 'below' | undefined {
  const c = chars[i]!;
  const baseline = baselineAround(chars, i, (j) => raised[j] === true);
  if (baseline === undefined) return undefined;
  if (baseline - c.box!.y1 > RAISED_BY * charHeight) return 'above';
  if (/^[0-9]$/.test(c.text) && c.box!.y1 - baseline > RAISED_BY * charHeight) return 'below';
  return undefined;
}

const SUPERSCRIPT_DIGITS = '⁰¹²³⁴⁵⁶⁷⁸⁹';
/** The digit a character spells, on the line ("2") or as a superscript ("²"); undefined for any other character. */
function digitOf(text: string): string | undefined {
  if (/^[0-9]$/.test(text)) return text;
  const at = text.length === 1 ? SUPERSCRIPT_DIGITS.indexOf(text) : -1;
  return at < 0 ? undefined : String(at);
}

/** A character the reader read as a superscript digit whose ink is raised as an exponent's is (`RAISED_BY`, `RAISED_MAX_HEIGHT`). */
function raisedSuperscript(chars: readonly OcrChar[], i: number, charHeight: number): boolean {
  const c = chars[i]!;
  if (!inked(c) || digitOf(c.text) === undefined || /^[0-9]$/.test(c.text)) return false;
  const baseline = baselineAround(chars, i);
  return baseline !== undefined && baseline - c.box.y1 > RAISED_BY * charHeight && height(c.box) <= RAISED_MAX_HEIGHT * charHeight;
}

/**
 * A digit whose ink is raised is an exponent however the reader spelled it: PP-OCRv4 splits a raised
 * "2" between "2" (0.47) and "²", and the doubt resolution would weigh "t2" against "t²" as two
 * maths. The ink decides where it sits, so the spellings of the same digit are one reading and take
 * their probability together; a different digit stays an alternative (the ink says nothing of which).
 */
function poolExponentSpellings(c: OcrChar): OcrChar {
  const digit = digitOf(c.text);
  const alternatives = c.alternatives ?? [];
  const same = alternatives.filter((a) => digitOf(a.text) === digit);
  if (digit === undefined || same.length === 0) return c;
  const pooled = same.reduce((sum, a) => sum + a.confidence, c.confidence);
  return { ...c, confidence: Math.min(1, pooled), alternatives: alternatives.filter((a) => digitOf(a.text) !== digit) };
}

/** A "×" floats on the maths axis: its ink ends at least this many character heights above the baseline; an "x" sits on it. */
export const TIMES_LIFT = 0.1;
const LETTER_OR_TIMES = new Set(['x', 'X', '×']);

/**
 * The line reader cannot tell a printed "x" from a "×" (PP-OCRv4 reads DejaVu's "2x" as "2×" at 0.72):
 * the ink decides. An "x" sits on the baseline; a "×" is centred on the maths axis, its ink ending well
 * above the baseline. The decided character takes both readings' probability, and neither stays an
 * alternative.
 */
function letterOrTimes(chars: readonly OcrChar[], i: number, charHeight: number, raised: readonly boolean[]): OcrChar {
  const c = chars[i]!;
  if (!LETTER_OR_TIMES.has(c.text) || !inked(c)) return c;
  const baseline = baselineAround(chars, i, (j) => LETTER_OR_TIMES.has(chars[j]!.text) || raised[j] === true);
  if (baseline === undefined) return c;
  const text = baseline - c.box.y1 > TIMES_LIFT * charHeight || betweenSpacedNumbers(chars, i) ? '×' : 'x';
  const alternatives = c.alternatives ?? [];
  const pair = alternatives.filter((a) => LETTER_OR_TIMES.has(a.text)).reduce((sum, a) => sum + a.confidence, c.confidence);
  return { ...c, text, confidence: Math.min(1, pair), alternatives: alternatives.filter((a) => !LETTER_OR_TIMES.has(a.text)) };
}

/**
 * An "x" set apart by spaces from a number on each side ("42 x 14") is the times sign whatever its lift:
 * as a letter it would be an unknown followed by a number with nothing between them, which printed maths
 * never writes (coefficients come first). An "x" touching a digit ("3x", "x2") is left to the ink: a
 * flattened exponent ("x2" for x²) must stay a doubt, not become a product.
 */
function betweenSpacedNumbers(chars: readonly OcrChar[], i: number): boolean {
  const spacedDigit = (step: -1 | 1): boolean => {
    let j = i + step;
    if (chars[j]?.text !== ' ') return false;
    while (chars[j]?.text === ' ') j += step;
    return /^[0-9]$/.test(chars[j]?.text ?? '');
  };
  return spacedDigit(-1) && spacedDigit(1);
}

/** A letter of a run of two or more letters is prose ("Simplify", "of", "cm"): its ink (descenders, ligatures) is not maths structure. */
function inProseWord(chars: readonly OcrChar[], i: number): boolean {
  const letter = (j: number): boolean => /^\p{L}$/u.test(chars[j]?.text ?? '');
  if (!letter(i)) return false;
  let start = i;
  while (letter(start - 1)) start -= 1;
  let end = i;
  while (letter(end + 1)) end += 1;
  return end - start + 1 >= 2;
}

/** Whether the run of letters holding `i` touches a digit ("2xn": a coefficient's unknowns, not a prose word). */
function nextToDigit(chars: readonly OcrChar[], i: number): boolean {
  const letter = (j: number): boolean => /^\p{L}$/u.test(chars[j]?.text ?? '');
  let start = i;
  while (letter(start - 1)) start -= 1;
  let end = i;
  while (letter(end + 1)) end += 1;
  return /^[0-9]$/.test(chars[start - 1]?.text ?? '') || /^[0-9]$/.test(chars[end + 1]?.text ?? '');
}

/** Ink this many character heights tall counts as a glyph for stacking (bars, dots and specks do not). */
export const GLYPH_HEIGHT = 0.3;

/**
 * Two glyph-sized blobs sharing most of their columns, one wholly above the other: a stacked fraction (or
 * a limit, an index); unless they are one stroke broken where a bar crosses it (`brokenAtCrossing`).
 */
export function stackedInk(blobs: readonly OcrBox[], charHeight: number): OcrBox | undefined {
  const glyphs = blobs.filter((b) => height(b) >= GLYPH_HEIGHT * charHeight);
  for (const a of glyphs) {
    for (const b of glyphs) {
      if (a === b || b.y0 < a.y1) continue;
      const overlap = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
      if (overlap >= 0.5 * Math.min(a.x1 - a.x0, b.x1 - b.x0) && !brokenAtCrossing(a, b, blobs)) return { x0: Math.min(a.x0, b.x0), y0: a.y0, x1: Math.max(a.x1, b.x1), y1: b.y1 };
    }
  }
  return undefined;
}

/**
 * Whether `above` and `below` are the ends of one upright stroke that a bar crosses, cut where the bar
 * meets it: both no wider than the bar is thick (strokes, not glyphs), the bar spanning their columns,
 * each ending within a pixel of it (issue 25: a 21 px Liberation Serif "+" whose 1 px upright falls
 * under the ink cut beside its bar). A fraction's numerator and denominator are glyphs wider than its
 * bar is thick, and TeX sets them apart from it (2 px and more at 20 px).
 */
function brokenAtCrossing(above: OcrBox, below: OcrBox, blobs: readonly OcrBox[]): boolean {
  return blobs.some(
    (bar) =>
      2 * height(bar) <= bar.x1 - bar.x0 &&
      bar.x0 <= Math.min(above.x0, below.x0) &&
      bar.x1 >= Math.max(above.x1, below.x1) &&
      bar.y0 >= above.y1 &&
      bar.y0 - above.y1 <= 1 &&
      below.y0 >= bar.y1 &&
      below.y0 - bar.y1 <= 1 &&
      Math.max(above.x1 - above.x0, below.x1 - below.x0) <= height(bar) + 1,
  );
}

/**
 * A tall blob whose columns hold other glyphs it overlaps vertically: a root sign with its bar over the
 * radicand (PP-OCRv4 reads "√64" as "64" or "v64"). Brackets and letters hold no other glyph.
 */
export function enclosingInk(blobs: readonly OcrBox[], charHeight: number): OcrBox | undefined {
  const glyphs = blobs.filter((b) => height(b) >= GLYPH_HEIGHT * charHeight);
  return glyphs.find(
    (outer) =>
      height(outer) >= 0.9 * charHeight &&
      glyphs.some((inner) => inner !== outer && inner.x0 >= outer.x0 && inner.x1 <= outer.x1 && inner.y0 < outer.y1 && inner.y1 > outer.y0 && inner.x1 - inner.x0 < outer.x1 - outer.x0),
  );
}

/**
 * A glyph-sized blob (or a bar: a minus, a fraction line) that no read character's box takes in: ink the
 * reader skipped, such as a root sign read as nothing ("√64 − 20" read "64 − 20").
 */
export function unclaimedInk(blobs: readonly OcrBox[], chars: readonly OcrChar[], charHeight: number): OcrBox | undefined {
  const boxes = chars.filter((c) => c.text.trim() !== '' && c.box !== undefined).map((c) => c.box!);
  // Prose words are not maths: ink within a word's span (a letter placed a little off) is left alone.
  const prose = chars.flatMap((c, i) => (c.box !== undefined && inProseWord(chars, i) ? [c.box] : []));
  const inProse = (b: OcrBox): boolean => prose.some((p) => (b.x0 + b.x1) / 2 >= p.x0 - 0.5 * charHeight && (b.x0 + b.x1) / 2 <= p.x1 + 0.5 * charHeight);
  const overlap = (a: OcrBox, b: OcrBox): number => Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));
  return blobs
    .filter((b) => Math.max(height(b), b.x1 - b.x0) >= GLYPH_HEIGHT * charHeight)
    .find((b) => !inProse(b) && !boxes.some((c) => overlap(b, c) >= 0.5 * (b.x1 - b.x0) * height(b)));
}
