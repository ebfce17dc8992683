import type { OcrBox } from '../port.js';
import type { RgbRaster } from '../raster.js';

/** A white page with each glyph's ink where `inked(u, v)` holds, u and v running 0..1 across its box (specs' drawn glyphs). */
export function glyphPage(width: number, height: number, glyphs: readonly { readonly at: OcrBox; readonly inked: (u: number, v: number) => boolean }[]): RgbRaster {
  const data = new Uint8Array(width * height * 3).fill(255);
  for (const { at, inked } of glyphs) {
    for (let y = at.y0; y < at.y1; y += 1) {
      for (let x = at.x0; x < at.x1; x += 1) {
        if (inked((x - at.x0 + 0.5) / (at.x1 - at.x0), (y - at.y0 + 0.5) / (at.y1 - at.y0))) data.fill(17, (y * width + x) * 3, (y * width + x) * 3 + 3);
      }
    }
  }
  return { width, height, data };
}
