import { borderMedian, type GrayImage, tentBlur } from './gray-image.js';

export interface Box {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

export interface ContentBox extends Box {
  /** Grey level of the page behind the content. */
  readonly background: number;
  /** Strongest blurred contrast against the background; tells ink from paper for later steps. */
  readonly peakContrast: number;
}

export interface ContentBoxOptions {
  /** Blur radius as a fraction of the longer side; big enough to melt JPEG blocks and noise. */
  readonly blurFraction?: number;
  /** A pixel is content when its blurred contrast exceeds this share of the peak contrast. */
  readonly relativeThreshold?: number;
  /** Below this peak contrast (grey levels) the image is treated as blank. */
  readonly minContrast?: number;
  /** Share of the content mass that may be shaved off each side, so isolated specks do not stretch the box. */
  readonly trimMass?: number;
  /**
   * Straight horizontal or vertical ink runs at least this share of the image's width (height) are
   * rules and frames: layout, not content. They are left out of the box, because a crop that clips a
   * frame or an answer line would otherwise move the box and with it every hash bit. 0 disables.
   */
  readonly ruleFraction?: number;
}

const DEFAULTS = { blurFraction: 0.006, relativeThreshold: 0.25, minContrast: 24, trimMass: 0.001, ruleFraction: 0.2 } as const;

/**
 * Finds the bounding box of whatever differs from the page. A naive trim (first pixel that is not
 * white) moves with every JPEG ringing artefact and noise speck; thresholding a blurred contrast map
 * relative to its own peak, then shaving a sliver of mass from each side, gives the same box for the
 * original and its degraded copies. Returns `null` for a blank image.
 */
export function findContentBox(image: GrayImage, options: ContentBoxOptions = {}): ContentBox | null {
  const { width, height } = image;
  const blurFraction = options.blurFraction ?? DEFAULTS.blurFraction;
  const relativeThreshold = options.relativeThreshold ?? DEFAULTS.relativeThreshold;
  const minContrast = options.minContrast ?? DEFAULTS.minContrast;
  const trimMass = options.trimMass ?? DEFAULTS.trimMass;

  const background = borderMedian(image);
  const contrast = new Float32Array(width * height);
  for (let i = 0; i < contrast.length; i += 1) contrast[i] = Math.abs((image.data[i] ?? 0) - background);
  const ruleFraction = options.ruleFraction ?? DEFAULTS.ruleFraction;
  if (ruleFraction > 0) eraseRules(contrast, width, height, ruleFraction, minContrast);
  const radius = Math.max(1, Math.round(Math.max(width, height) * blurFraction));
  const blurred = tentBlur(contrast, width, height, radius);

  let peak = 0;
  for (const v of blurred) if (v > peak) peak = v;
  if (peak < minContrast) return null;
  const threshold = peak * relativeThreshold;

  const rowMass = new Float64Array(height);
  const colMass = new Float64Array(width);
  let total = 0;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const excess = (blurred[y * width + x] ?? 0) - threshold;
      if (excess > 0) {
        rowMass[y] = (rowMass[y] ?? 0) + excess;
        colMass[x] = (colMass[x] ?? 0) + excess;
        total += excess;
      }
    }
  }
  if (total === 0) return null;
  const [top, bottom] = massSpan(rowMass, total * trimMass);
  const [left, right] = massSpan(colMass, total * trimMass);
  return { left, top, width: right - left + 1, height: bottom - top + 1, background, peakContrast: peak };
}

/** First and last index whose outside mass exceeds `trim`, i.e. the span left after shaving each end. */
function massSpan(mass: Float64Array, trim: number): [number, number] {
  let start = 0;
  let acc = 0;
  while (start < mass.length - 1) {
    const next = acc + (mass[start] ?? 0);
    if (next > trim && (mass[start] ?? 0) > 0) break;
    acc = next;
    start += 1;
  }
  let end = mass.length - 1;
  acc = 0;
  while (end > start) {
    const next = acc + (mass[end] ?? 0);
    if (next > trim && (mass[end] ?? 0) > 0) break;
    acc = next;
    end -= 1;
  }
  return [start, end];
}

/**
 * Zeroes rules in a contrast map: long, thin, axis-aligned ink runs (frames, answer lines, table
 * borders) and the anti-aliased pixels beside them. Thinness matters: a filled shape or a photo also
 * has long runs of ink, but they are thick, and they are content.
 */
export function eraseRules(contrast: Float32Array, width: number, height: number, ruleFraction: number, minContrast: number): void {
  let strongest = 0;
  for (const v of contrast) if (v > strongest) strongest = v;
  const inkLevel = Math.max(minContrast, strongest * 0.2);
  const ink = new Uint8Array(width * height);
  for (let i = 0; i < ink.length; i += 1) ink[i] = (contrast[i] ?? 0) >= inkLevel ? 1 : 0;
  const maxThickness = Math.max(3, Math.round(Math.max(width, height) * 0.012));
  // Thickness of the ink across each pixel: the length of its run perpendicular to a candidate rule.
  const vertical = runLengths(ink, height, width, (along, across) => along * width + across);
  const horizontal = runLengths(ink, width, height, (along, across) => across * width + along);
  const erase = new Uint8Array(width * height);
  // A rule survives gaps of this many pixels: JPEG ringing and noise punch small holes in a printed line.
  const maxGap = 2;
  const findRules = (
    length: number,
    count: number,
    index: (along: number, across: number) => number,
    thickness: Uint16Array,
    minRun: number,
    mark: (along: number, across: number) => void,
  ): void => {
    for (let across = 0; across < count; across += 1) {
      let runStart = -1;
      let lastInk = -1;
      const flush = (): void => {
        if (runStart >= 0 && lastInk - runStart + 1 >= minRun) for (let a = runStart; a <= lastInk; a += 1) mark(a, across);
      };
      for (let along = 0; along < length; along += 1) {
        const i = index(along, across);
        if (ink[i] !== 1 || (thickness[i] ?? 0) > maxThickness) continue;
        if (runStart < 0 || along - lastInk > maxGap + 1) {
          flush();
          runStart = along;
        }
        lastInk = along;
      }
      flush();
    }
  };
  const markRow = (x: number, y: number): void => {
    for (let dy = -2; dy <= 2; dy += 1) if (y + dy >= 0 && y + dy < height) erase[(y + dy) * width + x] = 1;
  };
  const markCol = (y: number, x: number): void => {
    for (let dx = -2; dx <= 2; dx += 1) if (x + dx >= 0 && x + dx < width) erase[y * width + x + dx] = 1;
  };
  findRules(width, height, (x, y) => y * width + x, vertical, Math.ceil(width * ruleFraction), markRow);
  findRules(height, width, (y, x) => y * width + x, horizontal, Math.ceil(height * ruleFraction), markCol);
  for (let i = 0; i < erase.length; i += 1) if (erase[i] === 1) contrast[i] = 0;
}

/** For every ink pixel, the length of the unbroken ink run through it along one axis (capped at 65535). */
function runLengths(ink: Uint8Array, length: number, count: number, index: (along: number, across: number) => number): Uint16Array {
  const out = new Uint16Array(ink.length);
  for (let across = 0; across < count; across += 1) {
    let along = 0;
    while (along < length) {
      if (ink[index(along, across)] !== 1) {
        along += 1;
        continue;
      }
      const start = along;
      while (along < length && ink[index(along, across)] === 1) along += 1;
      const run = Math.min(65535, along - start);
      for (let a = start; a < along; a += 1) out[index(a, across)] = run;
    }
  }
  return out;
}
