import type { GrayImage } from '../gray-image.js';
import type { OcrBox } from '../ocr-pool.js';

/**
 * A glyph's ink, or part of one (`=`, the dot of an `i`): an 8-connected blob of dark pixels, with the
 * fragments of a thin stroke broken by a small print joined to it (see `joinFragments`).
 */
export interface InkComponent {
  /** Inclusive pixel box on the page. */
  readonly box: OcrBox;
  /** Dark pixels. */
  readonly area: number;
  /** Its blobs' labels in `LineInk.labels`. */
  readonly labels: readonly number[];
}

/** The ink of one text line's band: its components and, per pixel of the band, which component it belongs to. */
export interface LineInk {
  readonly region: OcrBox;
  /** Row-major over `region`; 0 is paper, n is `components[n - 1]`. */
  readonly labels: Int32Array;
  readonly components: readonly InkComponent[];
  /** Dark is darker than this (0..255). */
  readonly threshold: number;
}

/** A run of raised, smaller glyphs right after a full-size one: an exponent as it is printed ("2¹⁰": the 1 and the 0 after the 2). */
export interface RaisedGroup {
  readonly box: OcrBox;
  readonly components: readonly InkComponent[];
  /** The glyph it is raised from. */
  readonly base: InkComponent;
}

/**
 * The shape of an exponent, relative to the glyph before it (the base). A superscript is printed at about
 * two thirds of the size, lifted by about 0.4 of the font size: its bottom is well above the base's, its
 * top at or above the base's top. Operators are lifted but low (`+`, `−`, the bars of `=`: their tops
 * are far below a digit's), a degree sign or an asterisk is as wide as tall, a quote is short, the dot
 * of an `i` sits over its stem: none of them is an exponent.
 */
const EXPONENT = {
  /** Bottom at least this share of the base's height above the base's bottom. */
  minLift: 0.3,
  /** Top no lower than this share of the base's height under the base's top. */
  maxTopDrop: 0.2,
  /** Height between these shares of the base's. */
  minSize: 0.5,
  maxSize: 0.9,
  /** Width at most this share of the height (digits are taller than wide; °, *, ^ are not). */
  maxAspect: 0.9,
  /** Gap to the previous glyph of the exponent (or the base) at most this share of the base's height. */
  maxGap: 0.5,
  /** The base's right edge may reach this share of its height into the exponent's box (kerning). */
  maxOverlap: 0.15,
} as const;

/** Share of the way from a region's darkest to its lightest pixel under which a pixel is ink (as in `ink-boxes`). */
const INK_CUT = 0.65;
/** A region whose tones span less than this has no ink to measure. */
const MIN_CONTRAST = 48;

/** Blobs smaller than this (pixels) are speckle: JPEG ringing, noise. */
const SPECKLE = 3;

/**
 * The ink of a band of the page: dark pixels (40 % of the way from the band's darkest to its lightest,
 * so a darkened photo is cut like a clean page) grouped into 8-connected components; blobs touching the
 * band's top or bottom edge belong to the lines above and below and are left out, as is speckle.
 * Undefined when the band is flat.
 */
export function lineInk(page: GrayImage, band: OcrBox): LineInk | undefined {
  const region = clamp(page, band);
  if (region === undefined) return undefined;
  const width = region.x1 - region.x0 + 1;
  const height = region.y1 - region.y0 + 1;
  let min = 255;
  let max = 0;
  for (let y = region.y0; y <= region.y1; y += 1) {
    for (let x = region.x0; x <= region.x1; x += 1) {
      const v = page.data[y * page.width + x] ?? 255;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  if (max - min < MIN_CONTRAST) return undefined;
  const threshold = min + INK_CUT * (max - min);
  const dark = (x: number, y: number): boolean => (page.data[(region.y0 + y) * page.width + region.x0 + x] ?? 255) < threshold;
  const labels = new Int32Array(width * height);
  const components: InkComponent[] = [];
  const stack: number[] = [];
  let next = 0;
  for (let start = 0; start < labels.length; start += 1) {
    if (labels[start] !== 0 || !dark(start % width, Math.floor(start / width))) continue;
    next += 1;
    labels[start] = next;
    stack.push(start);
    let x0 = width;
    let y0 = height;
    let x1 = -1;
    let y1 = -1;
    let area = 0;
    while (stack.length > 0) {
      const at = stack.pop() ?? 0;
      const x = at % width;
      const y = Math.floor(at / width);
      area += 1;
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
      for (let dy = -1; dy <= 1; dy += 1) {
        for (let dx = -1; dx <= 1; dx += 1) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          const n = ny * width + nx;
          if (labels[n] === 0 && dark(nx, ny)) {
            labels[n] = next;
            stack.push(n);
          }
        }
      }
    }
    if (area < SPECKLE || y0 === 0 || y1 === height - 1) continue;
    components.push({ labels: [next], area, box: { x0: region.x0 + x0, y0: region.y0 + y0, x1: region.x0 + x1, y1: region.y0 + y1 } });
  }
  return { region, labels, components: joinFragments(components).sort((a, b) => a.box.x0 - b.box.x0), threshold };
}

/** Fragments are under this share of the line's typical glyph height. */
const FRAGMENT = 0.6;
/** Fragments join blobs at most this share of the typical glyph height away (at least one pixel). */
const FRAGMENT_GAP = 0.1;

/**
 * Blobs joined where a thin stroke broke: a small print enlarged (a 40 % copy of a page) leaves a
 * superscript's diagonal strokes lighter than the cut, so a "2" falls apart into three blobs and a "4"
 * into two. A fragment (under 0.6 of the typical glyph height: the median height of the larger blobs)
 * joins any blob within 0.1 of that height; full-size glyphs are not joined to one another, so two
 * digits of an exponent stay two.
 */
function joinFragments(blobs: readonly InkComponent[]): InkComponent[] {
  if (blobs.length < 2) return [...blobs];
  const areas = blobs.map((b) => b.area).sort((a, b) => a - b);
  const medianArea = areas[Math.floor(areas.length / 2)] ?? 0;
  const heights = blobs.filter((b) => b.area >= medianArea).map((b) => heightOf(b.box)).sort((a, b) => a - b);
  const typical = heights[Math.floor(heights.length / 2)] ?? 0;
  const gap = Math.max(1, Math.round(FRAGMENT_GAP * typical));
  const parent = blobs.map((_b, i) => i);
  const root = (i: number): number => {
    let r = i;
    while (parent[r] !== r) r = parent[r] ?? r;
    return r;
  };
  for (let i = 0; i < blobs.length; i += 1) {
    for (let j = i + 1; j < blobs.length; j += 1) {
      const a = blobs[i];
      const b = blobs[j];
      if (a === undefined || b === undefined) continue;
      if (heightOf(a.box) >= FRAGMENT * typical && heightOf(b.box) >= FRAGMENT * typical) continue;
      const dx = Math.max(a.box.x0, b.box.x0) - Math.min(a.box.x1, b.box.x1) - 1;
      const dy = Math.max(a.box.y0, b.box.y0) - Math.min(a.box.y1, b.box.y1) - 1;
      if (Math.max(dx, dy) <= gap) parent[root(j)] = root(i);
    }
  }
  const joined = new Map<number, InkComponent>();
  blobs.forEach((b, i) => {
    const r = root(i);
    const prior = joined.get(r);
    joined.set(r, prior === undefined ? b : { box: union([prior.box, b.box]), area: prior.area + b.area, labels: [...prior.labels, ...b.labels] });
  });
  return [...joined.values()];
}

const heightOf = (b: OcrBox): number => b.y1 - b.y0 + 1;
const widthOf = (b: OcrBox): number => b.x1 - b.x0 + 1;

/** Whether `c` is shaped and placed as a glyph of an exponent raised from `base` (see `EXPONENT`). */
function raisedFrom(c: InkComponent, base: InkComponent): boolean {
  const h = heightOf(base.box);
  const ch = heightOf(c.box);
  return (
    c.box.y1 <= base.box.y1 - EXPONENT.minLift * h &&
    c.box.y0 <= base.box.y0 + EXPONENT.maxTopDrop * h &&
    ch >= EXPONENT.minSize * h &&
    ch <= EXPONENT.maxSize * h &&
    widthOf(c.box) <= EXPONENT.maxAspect * ch
  );
}

/**
 * The exponents of a line: runs of glyphs raised from the full-size glyph right before them (see
 * `EXPONENT`). A run is kept only when it is clean: nothing printed between the base and it (a raised
 * minus sign, a bracket: an exponent this cannot read whole), nothing under it (a stacked fraction),
 * no other glyph sharing its columns (a % broken apart), and no raised glyph of another shape right
 * after it (a letter in the exponent).
 */
export function raisedGroups(ink: LineInk): RaisedGroup[] {
  const parts = ink.components;
  const groups: RaisedGroup[] = [];
  const used = new Set<InkComponent>();
  for (const [i, first] of parts.entries()) {
    if (used.has(first)) continue;
    const base = baseOf(parts, i);
    if (base === undefined || !raisedFrom(first, base)) continue;
    const h = heightOf(base.box);
    if (first.box.x0 < base.box.x1 - EXPONENT.maxOverlap * h || first.box.x0 - base.box.x1 > EXPONENT.maxGap * h) continue;
    if (parts.some((c) => c !== base && c !== first && c.box.x0 > base.box.x1 && c.box.x1 < first.box.x0 && c.area >= 0.01 * h * h)) continue;
    const members = [first];
    let partial = false;
    for (let j = i + 1; j < parts.length; j += 1) {
      const c = parts[j];
      const last = members[members.length - 1];
      if (c === undefined || last === undefined) break;
      if (c.box.x0 - last.box.x1 > EXPONENT.maxGap * h) break;
      if (c.box.x0 <= last.box.x1 && c.box.y0 > last.box.y1) continue; // below the exponent: judged next
      if (raisedFrom(c, base)) members.push(c);
      else {
        // At the exponent's height but not shaped as a digit: a letter or a sign inside the exponent.
        partial = c.box.y1 <= base.box.y1 - EXPONENT.minLift * h && c.box.y0 <= base.box.y0 + EXPONENT.maxTopDrop * h;
        break;
      }
    }
    const box = union(members.map((m) => m.box));
    const under = parts.some((c) => !members.includes(c) && c !== base && c.box.y0 > box.y1 && overlap(c.box, box) > 0.3 * widthOf(c.box));
    // Another glyph's ink in its columns: the run is part of a larger sign (the top ring of a % whose
    // slash and lower ring broke off from it on a JPEG copy), not a glyph standing clear as an exponent.
    const crossed = parts.some((c) => !members.includes(c) && c !== base && overlap(c.box, box) > EXPONENT.maxOverlap * h);
    if (partial || under || crossed) continue;
    for (const m of members) used.add(m);
    groups.push({ box, components: members, base });
  }
  return groups;
}

/** The glyph an exponent starting at `parts[index]` is raised from: the nearest one ending before it that is at least as tall. */
function baseOf(parts: readonly InkComponent[], index: number): InkComponent | undefined {
  const c = parts[index];
  if (c === undefined) return undefined;
  let best: InkComponent | undefined;
  for (const p of parts) {
    if (p === c || heightOf(p.box) < heightOf(c.box) || p.box.x0 >= c.box.x0) continue;
    if (p.box.x1 > c.box.x0 + EXPONENT.maxOverlap * heightOf(p.box)) continue;
    if (best === undefined || p.box.x1 > best.box.x1) best = p;
  }
  return best;
}

function overlap(a: OcrBox, b: OcrBox): number {
  return Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) + 1;
}

export function union(boxes: readonly OcrBox[]): OcrBox {
  return {
    x0: Math.min(...boxes.map((b) => b.x0)),
    y0: Math.min(...boxes.map((b) => b.y0)),
    x1: Math.max(...boxes.map((b) => b.x1)),
    y1: Math.max(...boxes.map((b) => b.y1)),
  };
}

function clamp(page: GrayImage, box: OcrBox): OcrBox | undefined {
  const x0 = Math.max(0, Math.floor(box.x0));
  const y0 = Math.max(0, Math.floor(box.y0));
  const x1 = Math.min(page.width - 1, Math.ceil(box.x1));
  const y1 = Math.min(page.height - 1, Math.ceil(box.y1));
  return x1 > x0 && y1 > y0 ? { x0, y0, x1, y1 } : undefined;
}
