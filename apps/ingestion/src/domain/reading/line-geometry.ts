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
  /** Characters as in `text` (an exponent's "^" carries its first digit's confidence). */
  readonly chars: readonly OcrChar[];
  /** Structure the line cannot carry as text: stacked or tall ink (a fraction, a root, a matrix). */
  readonly doubts: readonly string[];
}

/** A digit counts as raised when its ink ends this far (in character heights) above the local baseline. */
export const RAISED_BY = 0.25;
/** ... and is at most this tall, against the line's character height. */
export const RAISED_MAX_HEIGHT = 0.85;
/** Ink taller than this many character heights is a structure (a stacked fraction, a radical, a big bracket). */
export const TALL_INK = 1.45;
/** Neighbours on each side whose baseline a character is judged against. */
const NEIGHBOURS = 4;

const SITS_ON_BASELINE = /^[0-9A-Zabcdefhiklmnorstuvwxz]$/;

const height = (box: OcrBox): number => box.y1 - box.y0;

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The characters' ink height: the upper quartile of digits' and letters' heights (capitals, digits and ascenders). */
function characterHeight(chars: readonly OcrChar[]): number | undefined {
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
    if (!/^[0-9]$/.test(c.text)) return false;
    const around = chars.slice(Math.max(0, i - NEIGHBOURS), i + NEIGHBOURS + 1).filter((n) => n !== c && n.box !== undefined && SITS_ON_BASELINE.test(n.text));
    const baseline = median(around.map((n) => n.box!.y1));
    if (baseline === undefined) return false;
    return baseline - c.box!.y1 > RAISED_BY * charHeight && height(c.box!) <= RAISED_MAX_HEIGHT * charHeight;
  });
  // A baseline judged from raised neighbours is no baseline: each raised digit must follow a character on the line.
  for (const [i, c] of chars.entries()) {
    if (c.box !== undefined && c.text.trim() !== '' && height(c.box) > TALL_INK * charHeight) doubts.push(`"${c.text}" stands ${(height(c.box) / charHeight).toFixed(1)} characters tall (a stacked fraction or a root?)`);
    if (raised[i] === true && (i === 0 || chars[i - 1]!.text.trim() === '')) doubts.push(`"${c.text}" is raised with nothing before it (an exponent of what?)`);
  }
  const stacked = stackedInk(line.inkBoxes ?? [], charHeight);
  if (stacked !== undefined) doubts.push(`glyphs stacked one above another at x ${stacked.x0}–${stacked.x1} (a stacked fraction?)`);
  const out: OcrChar[] = [];
  for (const [i, c] of chars.entries()) {
    if (raised[i] === true && raised[i - 1] !== true) out.push({ text: '^', confidence: c.confidence });
    out.push(c);
    // Text after an exponent on the line must not run into it: "x^2y" is x²·y, so close the exponent.
    if (raised[i] === true && raised[i + 1] !== true && /^[0-9A-Za-z(]$/.test(chars[i + 1]?.text ?? '')) out.push({ text: ' ', confidence: c.confidence });
  }
  return { text: out.map((c) => c.text).join(''), chars: out, doubts };
}

/** Ink this many character heights tall counts as a glyph for stacking (bars, dots and specks do not). */
const GLYPH_HEIGHT = 0.3;

/** Two glyph-sized blobs sharing most of their columns, one wholly above the other: a stacked fraction (or a limit, an index). */
export function stackedInk(blobs: readonly OcrBox[], charHeight: number): OcrBox | undefined {
  const glyphs = blobs.filter((b) => height(b) >= GLYPH_HEIGHT * charHeight);
  for (const a of glyphs) {
    for (const b of glyphs) {
      if (a === b || b.y0 < a.y1) continue;
      const overlap = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
      if (overlap >= 0.5 * Math.min(a.x1 - a.x0, b.x1 - b.x0)) return { x0: Math.min(a.x0, b.x0), y0: a.y0, x1: Math.max(a.x1, b.x1), y1: b.y1 };
    }
  }
  return undefined;
}
