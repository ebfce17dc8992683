import type { OcrBox, OcrChar, OcrReading } from '@openpaw/providers/ocr';
import { GLYPH_HEIGHT, median } from './line-geometry.js';

/**
 * Stacked fractions laid on the line (issue 25). A line reader cannot read "1 over 2": the detector
 * cuts the numerator and the denominator into lines of their own, or reads the stack as noise. The
 * page's ink shows the layout: a fraction bar is a thin stroke with glyphs just above it and just below
 * it, all within its columns. The page is redrawn with each fraction written inline (numerator, a
 * slash, denominator, standing on the line's baseline) and read again; the numerator and the
 * denominator are what was read in their own columns of the redrawn page, each bracketed, so
 * "x+1 over 2" is (x+1)/(2), never x + 1/2. Only one-row pages are redrawn (a fraction's columns hold
 * nothing else), and the redrawn reading is judged like any other: a doubt still refuses.
 */
export interface Fraction {
  readonly bar: OcrBox;
  readonly numerator: OcrBox;
  readonly denominator: OcrBox;
}

/** A fraction bar is at most this many character heights thick (and at least 2 px may always be). */
const BAR_THICKNESS = 0.15;
/**
 * ... and its numerator and denominator lie within this many character heights of it. TeX sets them
 * close (about 0.3); a page drawn by hand or by HTML leaves more air (0.55–0.7 measured on a 40 px
 * DejaVu Sans page), and the stack still has the bar's columns to itself (the stray-ink check below).
 */
const BAR_GAP = 0.75;

const height = (b: OcrBox): number => b.y1 - b.y0;
const width = (b: OcrBox): number => b.x1 - b.x0;
const union = (boxes: readonly OcrBox[]): OcrBox => ({ x0: Math.min(...boxes.map((b) => b.x0)), y0: Math.min(...boxes.map((b) => b.y0)), x1: Math.max(...boxes.map((b) => b.x1)), y1: Math.max(...boxes.map((b) => b.y1)) });

/** The page's fraction bars with what stands on them and hangs under them, left to right. */
export function findFractions(ink: readonly OcrBox[], charHeight: number): Fraction[] {
  const glyphs = ink.filter((b) => height(b) >= GLYPH_HEIGHT * charHeight);
  const bars = ink.filter((b) => height(b) <= Math.max(2, BAR_THICKNESS * charHeight) && width(b) >= GLYPH_HEIGHT * charHeight);
  const fractions: Fraction[] = [];
  for (const bar of bars) {
    const inColumns = (g: OcrBox): boolean => g.x0 >= bar.x0 - 1 && g.x1 <= bar.x1 + 1;
    const nearAbove = glyphs.filter((g) => inColumns(g) && g.y1 <= bar.y0 && bar.y0 - g.y1 <= BAR_GAP * charHeight);
    const nearBelow = glyphs.filter((g) => inColumns(g) && g.y0 >= bar.y1 && g.y0 - bar.y1 <= BAR_GAP * charHeight);
    if (nearAbove.length === 0 || nearBelow.length === 0) continue;
    // Ink in the bar's columns and the rows of the glyphs found is theirs: pieces of a glyph whose thin
    // strokes fell under the ink cut (issue 25: a 20 px DejaVu "2" in three pieces, its ball and its
    // foot "stray" ink, so "2 over 3" was no fraction and its page refused).
    const top = Math.min(...nearAbove.map((g) => g.y0));
    const bottom = Math.max(...nearBelow.map((g) => g.y1));
    const above = ink.filter((b) => b !== bar && inColumns(b) && b.y0 >= top && b.y1 <= bar.y0);
    const below = ink.filter((b) => b !== bar && inColumns(b) && b.y0 >= bar.y1 && b.y1 <= bottom);
    // Ink in the bar's columns that is neither the numerator's, the denominator's nor the bar: not a plain fraction.
    const numerator = union(above);
    const denominator = union(below);
    const stray = ink.some((b) => b !== bar && !above.includes(b) && !below.includes(b) && b.x1 > bar.x0 && b.x0 < bar.x1 && !inside(b, numerator) && !inside(b, denominator));
    if (!stray) fractions.push({ bar, numerator, denominator });
  }
  return fractions.sort((a, b) => a.bar.x0 - b.bar.x0);
}

const inside = (b: OcrBox, outer: OcrBox): boolean => b.x0 >= outer.x0 && b.x1 <= outer.x1 && b.y0 >= outer.y0 && b.y1 <= outer.y1;

export interface Raster {
  readonly data: Buffer;
  readonly width: number;
  readonly height: number;
  readonly channels: number;
}

/** Where a fraction went in the redrawn page: its numerator's, slash's and denominator's columns. */
export interface InlineFraction {
  readonly numerator: readonly [number, number];
  readonly slash: readonly [number, number];
  readonly denominator: readonly [number, number];
}

/**
 * The page redrawn with each fraction inline: the columns before, between and after the fractions as
 * they were; each fraction's columns replaced by its numerator, a slash as thick as its bar, and its
 * denominator, both standing on the baseline of the page's other glyphs. Undefined when the page has no
 * baseline to stand them on.
 */
export function inlineFractions(page: Raster, ink: readonly OcrBox[], fractions: readonly Fraction[], charHeight: number): { page: Raster; placed: InlineFraction[] } | undefined {
  const within = (b: OcrBox): boolean => b.x0 >= 0 && b.y0 >= 0 && b.x1 <= page.width && b.y1 <= page.height;
  // The ink must be this page's (a reader that turned the page measured another): in it, each bar is dark.
  if (!fractions.every((f) => within(f.bar) && within(f.numerator) && within(f.denominator) && inked(page, f.bar))) return undefined;
  // Fractions side by side, not overlapping: each one's columns are replaced in turn.
  if (fractions.some((f, i) => i > 0 && f.bar.x0 < fractions[i - 1]!.bar.x1)) return undefined;
  const inFraction = (b: OcrBox): boolean => fractions.some((f) => b.x1 > f.bar.x0 && b.x0 < f.bar.x1);
  const baseline = median(ink.filter((b) => height(b) >= 0.6 * charHeight && !inFraction(b)).map((b) => b.y1));
  if (baseline === undefined) return undefined;
  const gap = Math.max(2, Math.round(0.15 * charHeight));
  const slashWidth = Math.max(3, Math.round(0.45 * charHeight));
  const extra = fractions.reduce((sum, f) => sum + width(f.numerator) + width(f.denominator) + slashWidth + 4 * gap - width(f.bar), 0);
  const out: Raster = { width: page.width + Math.max(0, extra), height: page.height, channels: page.channels, data: Buffer.alloc((page.width + Math.max(0, extra)) * page.height * page.channels, 255) };
  let to = 0;
  let from = 0;
  const copy = (region: OcrBox, x: number, y: number): void => {
    for (let row = 0; row < height(region); row += 1) {
      const ty = y + row;
      if (ty < 0 || ty >= out.height) continue;
      const source = ((region.y0 + row) * page.width + region.x0) * page.channels;
      page.data.copy(out.data, (ty * out.width + x) * out.channels, source, source + width(region) * page.channels);
    }
  };
  const placed: InlineFraction[] = [];
  for (const f of fractions) {
    copy({ x0: from, y0: 0, x1: f.bar.x0, y1: page.height }, to, 0);
    to += f.bar.x0 - from;
    to += gap;
    const numerator = [to, to + width(f.numerator)] as const;
    copy(f.numerator, to, baseline - height(f.numerator));
    to += width(f.numerator) + gap;
    const slash = [to, to + slashWidth] as const;
    drawSlash(out, page, f.bar, to, slashWidth, baseline, charHeight);
    to += slashWidth + gap;
    const denominator = [to, to + width(f.denominator)] as const;
    copy(f.denominator, to, baseline - height(f.denominator));
    to += width(f.denominator) + gap;
    placed.push({ numerator, slash, denominator });
    from = f.bar.x1;
  }
  copy({ x0: from, y0: 0, x1: page.width, y1: page.height }, to, 0);
  return { page: out, placed };
}

/** The mean brightness of the box's pixels (0..255). */
function brightness(page: Raster, box: OcrBox, step = 1): number {
  let sum = 0;
  let count = 0;
  for (let y = box.y0; y < box.y1; y += step) {
    for (let x = box.x0; x < box.x1; x += step) {
      const at = (y * page.width + x) * page.channels;
      for (let c = 0; c < Math.min(3, page.channels); c += 1) sum += page.data[at + c]!;
      count += Math.min(3, page.channels);
    }
  }
  return count === 0 ? 255 : sum / count;
}

/** Whether the box holds ink on this page: darker than the page by a quarter (the page is mostly background). */
function inked(page: Raster, box: OcrBox): boolean {
  return brightness(page, box) < 0.75 * brightness(page, { x0: 0, y0: 0, x1: page.width, y1: page.height }, 3);
}

/** A slash from the baseline up one character height, as thick as the bar and in its ink. */
function drawSlash(out: Raster, page: Raster, bar: OcrBox, x: number, slashWidth: number, baseline: number, charHeight: number): void {
  const at = ((Math.floor((bar.y0 + bar.y1) / 2) * page.width + Math.floor((bar.x0 + bar.x1) / 2)) * page.channels);
  const colour = page.data.subarray(at, at + page.channels);
  const thickness = Math.max(2, height(bar));
  const rise = Math.round(charHeight);
  for (let dy = 0; dy < rise; dy += 1) {
    const y = baseline - dy;
    const cx = x + Math.round((dy / rise) * (slashWidth - thickness));
    for (let t = 0; t < thickness; t += 1) {
      if (y < 0 || y >= out.height || cx + t >= out.width) continue;
      colour.copy(out.data, (y * out.width + cx + t) * out.channels);
    }
  }
}

/**
 * The redrawn page's reading with each fraction bracketed, "(numerator)/(denominator)": what was read
 * in the numerator's and the denominator's columns, and one "/" read in the slash's. Undefined when the
 * reading does not show the fraction so (the slash read as something else, a side read as nothing, a
 * character straddling two parts): the fraction was not read.
 */
export function bracketFractions(reading: OcrReading, placed: readonly InlineFraction[]): OcrReading | undefined {
  const lines = reading.lines.filter((l) => l.text !== '');
  if (lines.length !== 1) return undefined;
  const line = lines[0]!;
  const centre = (c: OcrChar): number | undefined => (c.box === undefined ? undefined : (c.box.x0 + c.box.x1) / 2);
  const within = (c: OcrChar, [x0, x1]: readonly [number, number]): boolean => c.text.trim() !== '' && centre(c) !== undefined && centre(c)! >= x0 - 1 && centre(c)! <= x1 + 1;
  let chars = [...line.chars];
  for (const f of placed) {
    const numerator = chars.filter((c) => within(c, f.numerator));
    const slash = chars.filter((c) => within(c, f.slash) || (c.text === '' && centre(c) !== undefined && centre(c)! >= f.slash[0] && centre(c)! <= f.slash[1]));
    const denominator = chars.filter((c) => within(c, f.denominator));
    if (numerator.length === 0 || denominator.length === 0 || slash.length !== 1 || slash[0]!.text !== '/') return undefined;
    const first = chars.indexOf(numerator[0]!);
    const last = chars.indexOf(denominator.at(-1)!);
    const middle = chars.slice(first, last + 1);
    // A place read as nothing inside the fraction may be a lost digit.
    if (middle.some((c) => c.text === '')) return undefined;
    // Between the numerator and the denominator only the slash and spaces: anything else straddles the parts.
    if (middle.some((c) => c.text.trim() !== '' && c.text !== '' && !numerator.includes(c) && !denominator.includes(c) && c !== slash[0])) return undefined;
    const open = (c: OcrChar, text: string): OcrChar => ({ text, confidence: 1, box: { ...c.box!, x1: c.box!.x0 }, ownInk: false });
    const close = (c: OcrChar, text: string): OcrChar => ({ text, confidence: 1, box: { ...c.box!, x0: c.box!.x1 }, ownInk: false });
    const written = [open(numerator[0]!, '('), ...numerator, close(numerator.at(-1)!, ')'), slash[0]!, open(denominator[0]!, '('), ...denominator, close(denominator.at(-1)!, ')')];
    chars = [...chars.slice(0, first), ...written, ...chars.slice(last + 1)];
  }
  const text = chars.map((c) => c.text).join('');
  return { ...reading, lines: reading.lines.map((l) => (l === line ? { ...l, text, chars } : l)) };
}
