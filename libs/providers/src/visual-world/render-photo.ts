import { loadSharp } from '../shared/load-sharp.js';
import { cellIsDark, DARK_CELL, FRAME_FRACTION, FRAME_RGB, GLYPH_GRID, LIGHT_CELL } from './glyph-code.js';
import { pick, seededRandom } from './prng.js';
import type { WorldFace, WorldPhoto } from './world.js';

interface Canvas {
  readonly width: number;
  readonly height: number;
  readonly rgb: Uint8ClampedArray;
}

function fill(canvas: Canvas, x0: number, y0: number, w: number, h: number, rgb: readonly number[]): void {
  for (let y = Math.max(0, y0); y < Math.min(canvas.height, y0 + h); y += 1) {
    for (let x = Math.max(0, x0); x < Math.min(canvas.width, x0 + w); x += 1) {
      const i = (y * canvas.width + x) * 3;
      canvas.rgb[i] = rgb[0] ?? 0;
      canvas.rgb[i + 1] = rgb[1] ?? 0;
      canvas.rgb[i + 2] = rgb[2] ?? 0;
    }
  }
}

/** A muted colour that is never magenta-like (green never far below red and blue). */
function mutedColour(random: () => number): number[] {
  const r = 70 + pick(random, 120);
  const b = 70 + pick(random, 120);
  const g = Math.max(70 + pick(random, 120), Math.min(r, b) - 20);
  return [r, g, b];
}

function drawFace(canvas: Canvas, face: WorldFace): void {
  const frame = Math.max(2, Math.round(face.size * FRAME_FRACTION));
  fill(canvas, face.x, face.y, face.size, face.size, FRAME_RGB);
  const inner = face.size - 2 * frame;
  for (let row = 0; row < GLYPH_GRID; row += 1) {
    for (let col = 0; col < GLYPH_GRID; col += 1) {
      const x0 = face.x + frame + Math.round((col * inner) / GLYPH_GRID);
      const x1 = face.x + frame + Math.round(((col + 1) * inner) / GLYPH_GRID);
      const y0 = face.y + frame + Math.round((row * inner) / GLYPH_GRID);
      const y1 = face.y + frame + Math.round(((row + 1) * inner) / GLYPH_GRID);
      const level = cellIsDark(face.code, row, col) ? DARK_CELL : LIGHT_CELL;
      fill(canvas, x0, y0, x1 - x0, y1 - y0, [level, level, level]);
    }
  }
}

/** Box blur of a region, `passes` times, then uniform noise: what a small, out-of-focus face looks like. */
function degrade(canvas: Canvas, face: WorldFace, random: () => number): void {
  const x0 = Math.max(0, face.x - 3);
  const y0 = Math.max(0, face.y - 3);
  const x1 = Math.min(canvas.width, face.x + face.size + 3);
  const y1 = Math.min(canvas.height, face.y + face.size + 3);
  for (let pass = 0; pass < 2; pass += 1) {
    const copy = canvas.rgb.slice();
    for (let y = y0; y < y1; y += 1) {
      for (let x = x0; x < x1; x += 1) {
        for (let c = 0; c < 3; c += 1) {
          let sum = 0;
          let n = 0;
          for (let dy = -2; dy <= 2; dy += 1) {
            for (let dx = -2; dx <= 2; dx += 1) {
              const yy = y + dy;
              const xx = x + dx;
              if (yy < 0 || xx < 0 || yy >= canvas.height || xx >= canvas.width) continue;
              sum += copy[(yy * canvas.width + xx) * 3 + c] ?? 0;
              n += 1;
            }
          }
          canvas.rgb[(y * canvas.width + x) * 3 + c] = sum / n;
        }
      }
    }
  }
  for (let y = y0; y < y1; y += 1) {
    for (let x = x0; x < x1; x += 1) {
      const i = (y * canvas.width + x) * 3;
      const noise = (random() - 0.5) * 70;
      for (let c = 0; c < 3; c += 1) canvas.rgb[i + c] = (canvas.rgb[i + c] ?? 0) + noise;
    }
  }
}

/**
 * Renders a world photo as a JPEG: a gradient with a few muted blocks, and each face as a magenta
 * framed glyph (its person's code, or a stranger's), blurred faces degraded. The identity of each
 * face exists only in these pixels; the local recogniser has to read it back.
 */
export async function renderWorldPhoto(photo: WorldPhoto): Promise<Buffer> {
  const sharp = await loadSharp();
  const random = seededRandom(photo.backgroundSeed);
  const canvas: Canvas = { width: photo.width, height: photo.height, rgb: new Uint8ClampedArray(photo.width * photo.height * 3) };
  const top = mutedColour(random);
  const bottom = mutedColour(random);
  for (let y = 0; y < canvas.height; y += 1) {
    const t = y / (canvas.height - 1);
    fill(canvas, 0, y, canvas.width, 1, [0, 1, 2].map((c) => (top[c] ?? 0) * (1 - t) + (bottom[c] ?? 0) * t));
  }
  for (let block = 0; block < 6; block += 1) {
    fill(canvas, pick(random, canvas.width), pick(random, canvas.height), 20 + pick(random, 120), 20 + pick(random, 80), mutedColour(random));
  }
  for (const face of photo.faces) drawFace(canvas, face);
  for (const face of photo.faces) if (face.clarity === 'blurred') degrade(canvas, face, random);
  return sharp(Buffer.from(canvas.rgb.buffer), { raw: { width: canvas.width, height: canvas.height, channels: 3 } }).jpeg({ quality: 88 }).toBuffer();
}
