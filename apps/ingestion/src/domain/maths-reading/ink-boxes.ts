import sharp from 'sharp';
import type { GrayImage } from '../gray-image.js';
import type { OcrBox, OcrResult, OcrWord } from '../ocr-pool.js';

/** Share of a digit's box width dropped on each side before its ink is measured (neighbours' ink overlaps the edges). */
const COLUMN_TRIM = 0.25;

/**
 * The vertical extent of each digit's ink, measured on the page, in place of tesseract's box for it.
 * The LSTM engine places character boxes by the line it decoded, not the pixels: a raised, smaller
 * exponent the model did not recognise as one is given the same box as the digit before it ("7⁴" read
 * as "74", both boxed on the baseline; issue 16's handwriting-like "6¹⁰ + 7⁴"), so the size and height
 * checks (`unevenDigits`, `lostExponent`) never saw it. Each digit's ink is measured in the middle of its
 * box's columns, within its word's rows; dark is under 40 % of the way from the word's darkest pixel to
 * its lightest, so a darkened photo is judged like a clean one and the antialiased edge of a neighbour
 * does not count. Other characters keep their boxes.
 */
export async function withInkBoxes(page: Buffer, ocr: OcrResult): Promise<OcrResult> {
  const words = ocr.words ?? [];
  if (!words.some((w) => w.symbols.some((s) => /[0-9]/.test(s.text)))) return ocr;
  const { data, info } = await sharp(page).grayscale().raw().toBuffer({ resolveWithObject: true });
  const gray: GrayImage = { width: info.width, height: info.height, data };
  return { ...ocr, words: words.map((w) => inkWord(gray, w)) };
}

export function inkWord(page: GrayImage, word: OcrWord): OcrWord {
  if (!word.symbols.some((s) => /[0-9]/.test(s.text))) return word;
  const rows = clampBox(page, word.bbox);
  if (rows === undefined) return word;
  const dark = darkBelow(page, rows);
  if (dark === undefined) return word;
  return {
    ...word,
    symbols: word.symbols.map((s) => {
      if (!/^[0-9]$/.test(s.text)) return s;
      const inset = Math.floor((s.bbox.x1 - s.bbox.x0) * COLUMN_TRIM);
      const ink = inkRows(page, { x0: s.bbox.x0 + inset, x1: s.bbox.x1 - inset, y0: rows.y0, y1: rows.y1 }, dark);
      return ink === undefined ? s : { ...s, bbox: { x0: s.bbox.x0, x1: s.bbox.x1, y0: ink.top, y1: ink.bottom } };
    }),
  };
}

function clampBox(page: GrayImage, box: OcrBox): OcrBox | undefined {
  const x0 = Math.max(0, Math.floor(box.x0));
  const y0 = Math.max(0, Math.floor(box.y0));
  const x1 = Math.min(page.width - 1, Math.ceil(box.x1));
  const y1 = Math.min(page.height - 1, Math.ceil(box.y1));
  return x1 > x0 && y1 > y0 ? { x0, y0, x1, y1 } : undefined;
}

/** The ink threshold of a region: 40 % of the way from its darkest to its lightest pixel; undefined for a flat region. */
function darkBelow(page: GrayImage, box: OcrBox): number | undefined {
  let min = 255;
  let max = 0;
  for (let y = box.y0; y <= box.y1; y += 1) {
    for (let x = box.x0; x <= box.x1; x += 1) {
      const v = page.data[y * page.width + x] ?? 255;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  return max - min < 48 ? undefined : min + 0.4 * (max - min);
}

function inkRows(page: GrayImage, box: OcrBox, dark: number): { top: number; bottom: number } | undefined {
  const x0 = Math.max(0, box.x0);
  const x1 = Math.min(page.width - 1, box.x1);
  let top = -1;
  let bottom = -1;
  for (let y = box.y0; y <= box.y1; y += 1) {
    for (let x = x0; x <= x1; x += 1) {
      if ((page.data[y * page.width + x] ?? 255) < dark) {
        if (top < 0) top = y;
        bottom = y;
        break;
      }
    }
  }
  return top < 0 ? undefined : { top, bottom };
}
