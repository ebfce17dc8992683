import type { OutputInfo } from 'sharp';
import { loadSharp } from '../shared/load-sharp.js';
import { ProviderError } from '../llm/errors.js';
import { type CelebrityRecognizer, largestFirst, type RecognitionResult, type RecognizedCelebrity } from '../recognition/port.js';
import { cellIsDark, FRAME_FRACTION, GLYPH_GRID, popcount } from './glyph-code.js';

/** Someone the local recogniser knows: its "celebrity database". */
export interface GlyphIdentity {
  readonly celebrityId: string;
  readonly name: string;
  readonly code: number;
}

interface Component {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
  readonly pixels: number;
}

/** Misread cells tolerated before a face counts as unrecognised (codes are ≥ 8 apart). */
const MAX_MISREAD_CELLS = 3;
/** Below this light/dark contrast (grey levels) a glyph is not read at all. */
const MIN_CONTRAST = 40;
/** The contrast of a sharp glyph after JPEG; more does not raise confidence. */
const FULL_CONTRAST = 170;

function isFrame(r: number, g: number, b: number): boolean {
  return r > 140 && b > 130 && g < 120 && r - g > 60 && b - g > 50;
}

/**
 * The local celebrity recogniser (`local/glyph-recognizer`): finds magenta-framed glyph "faces" in the
 * pixels (connected components of frame colour, roughly square, ring-shaped), samples the centre of
 * each of the 5×5 cells, and matches the light/dark pattern against the identities it knows. Its
 * confidence is measured: the mean signed margin of each cell from the light/dark threshold, agreeing
 * with the matched code, scaled by the glyph's contrast. A sharp glyph reads ≈ 99 %, a small blurred
 * noisy one far lower. Offline and deterministic; it knows only the identities it was given.
 */
export class LocalGlyphRecognizer implements CelebrityRecognizer {
  readonly provider = 'local/glyph-recognizer';
  readonly local = true;

  constructor(private readonly identities: readonly GlyphIdentity[]) {}

  async recognize(image: Uint8Array, options: { readonly signal?: AbortSignal } = {}): Promise<RecognitionResult> {
    if (options.signal?.aborted === true) throw new ProviderError('aborted', 'local', 'request aborted by the caller');
    const sharp = await loadSharp();
    let raw: { data: Buffer; info: OutputInfo };
    try {
      raw = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    } catch (error) {
      throw new ProviderError('bad_request', 'local', `not a readable image: ${error instanceof Error ? error.message : String(error)}`);
    }
    const { width, height } = raw.info;
    const rgb = raw.data;
    const celebrities: RecognizedCelebrity[] = [];
    let unrecognizedFaces = 0;
    for (const component of frameComponents(rgb, width, height)) {
      const read = this.readGlyph(rgb, width, component);
      if (read === undefined) {
        unrecognizedFaces += 1;
        continue;
      }
      celebrities.push({
        celebrityId: read.identity.celebrityId,
        name: read.identity.name,
        matchConfidence: read.confidence,
        box: { left: component.x0 / width, top: component.y0 / height, width: (component.x1 - component.x0 + 1) / width, height: (component.y1 - component.y0 + 1) / height },
        urls: [],
      });
    }
    return { provider: this.provider, local: true, celebrities: largestFirst(celebrities), unrecognizedFaces };
  }

  private readGlyph(rgb: Buffer, width: number, c: Component): { identity: GlyphIdentity; confidence: number } | undefined {
    const side = (c.x1 - c.x0 + 1 + (c.y1 - c.y0 + 1)) / 2;
    const frame = side * FRAME_FRACTION;
    const inner = side - 2 * frame;
    const means: number[] = [];
    for (let row = 0; row < GLYPH_GRID; row += 1) {
      for (let col = 0; col < GLYPH_GRID; col += 1) {
        const cx = c.x0 + frame + ((col + 0.5) * inner) / GLYPH_GRID;
        const cy = c.y0 + frame + ((row + 0.5) * inner) / GLYPH_GRID;
        const half = Math.max(0.5, inner / GLYPH_GRID / 4);
        let sum = 0;
        let n = 0;
        for (let y = Math.round(cy - half); y <= Math.round(cy + half); y += 1) {
          for (let x = Math.round(cx - half); x <= Math.round(cx + half); x += 1) {
            const i = (y * width + x) * 3;
            sum += 0.299 * (rgb[i] ?? 0) + 0.587 * (rgb[i + 1] ?? 0) + 0.114 * (rgb[i + 2] ?? 0);
            n += 1;
          }
        }
        means.push(sum / Math.max(1, n));
      }
    }
    const lo = Math.min(...means);
    const hi = Math.max(...means);
    const contrast = hi - lo;
    if (contrast < MIN_CONTRAST) return undefined;
    const threshold = (hi + lo) / 2;
    let bits = 0;
    const margins = means.map((m, i) => {
      if (m < threshold) bits |= 1 << i;
      return Math.min(1, Math.abs(m - threshold) / (contrast / 2));
    });
    let best: { identity: GlyphIdentity; distance: number } | undefined;
    for (const identity of this.identities) {
      const distance = popcount((identity.code ^ bits) >>> 0);
      if (best === undefined || distance < best.distance) best = { identity, distance };
    }
    if (best === undefined || best.distance > MAX_MISREAD_CELLS) return undefined;
    let agreement = 0;
    margins.forEach((margin, i) => {
      const dark = cellIsDark(best.identity.code, Math.floor(i / GLYPH_GRID), i % GLYPH_GRID);
      agreement += dark === (((bits >>> i) & 1) === 1) ? margin : -margin;
    });
    const score = Math.max(0, agreement / margins.length) * Math.min(1, contrast / FULL_CONTRAST);
    return { identity: best.identity, confidence: Math.round(score * 99.9 * 100) / 100 };
  }
}

/** Connected components of frame-coloured pixels that look like a glyph frame: square-ish, ring-filled, not tiny. */
function frameComponents(rgb: Buffer, width: number, height: number): Component[] {
  const mask = new Uint8Array(width * height);
  for (let p = 0; p < width * height; p += 1) mask[p] = isFrame(rgb[p * 3] ?? 0, rgb[p * 3 + 1] ?? 0, rgb[p * 3 + 2] ?? 0) ? 1 : 0;
  const found: Component[] = [];
  const stack: number[] = [];
  for (let start = 0; start < mask.length; start += 1) {
    if (mask[start] !== 1) continue;
    mask[start] = 2;
    stack.push(start);
    let x0 = width;
    let y0 = height;
    let x1 = 0;
    let y1 = 0;
    let pixels = 0;
    while (stack.length > 0) {
      const p = stack.pop() ?? 0;
      const x = p % width;
      const y = (p - x) / width;
      pixels += 1;
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
      for (const q of [x > 0 ? p - 1 : -1, x < width - 1 ? p + 1 : -1, y > 0 ? p - width : -1, y < height - 1 ? p + width : -1]) {
        if (q >= 0 && mask[q] === 1) {
          mask[q] = 2;
          stack.push(q);
        }
      }
    }
    const w = x1 - x0 + 1;
    const h = y1 - y0 + 1;
    const fillRatio = pixels / (w * h);
    if (w >= 14 && h >= 14 && w / h > 0.75 && w / h < 1.33 && fillRatio > 0.2 && fillRatio < 0.85) found.push({ x0, y0, x1, y1, pixels });
  }
  return found;
}
