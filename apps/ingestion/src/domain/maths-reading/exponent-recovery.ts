import sharp from 'sharp';
import type { OcrBox, OcrEngine, OcrResult, OcrWord } from '../ocr-pool.js';
import { cropForReading } from './second-pass-input.js';
import { raisedSymbols } from './token-checks.js';

/**
 * Exponents back into a reading: tesseract's eng model has no superscript digits, so "2¹⁰" comes out as
 * "2'°" or "210". Each maths word with raised glyphs (`raisedSymbols`) has them cut out of the page it was
 * read from, enlarged, and read again alone as one word of digits; the word's text becomes its base
 * glyphs, `^`, and those digits, with the weaker of the two confidences. Words without raised glyphs,
 * and raised glyphs that do not read as digits, are left as they were (the checks then refuse them).
 */
export async function recoverExponents(
  page: Buffer,
  ocr: OcrResult,
  engine: Pick<OcrEngine, 'recognise'>,
): Promise<{ readonly ocr: OcrResult; readonly recovered: number }> {
  const words = ocr.words ?? [];
  if (words.length === 0) return { ocr, recovered: 0 };
  const lines = new Map<number, OcrWord[]>();
  for (const w of words) lines.set(w.line, [...(lines.get(w.line) ?? []), w]);
  let recovered = 0;
  const rewritten: OcrWord[] = [];
  for (const word of words) {
    const raised = raisedSymbols(word, lines.get(word.line) ?? []);
    if (raised.length === 0) {
      rewritten.push(word);
      continue;
    }
    const read = await readDigits(page, union(raised.map((i) => word.symbols[i]?.bbox).filter((b) => b !== undefined)), engine);
    if (read === undefined) {
      rewritten.push(word);
      continue;
    }
    const first = Math.min(...raised);
    const base = word.symbols.filter((_s, i) => !raised.includes(i) && i < first).map((s) => s.text).join('');
    const after = word.symbols.filter((_s, i) => !raised.includes(i) && i > first).map((s) => s.text).join('');
    rewritten.push({ ...word, text: `${base}^${read.text}${after === '' ? '' : ` ${after}`}`, confidence: Math.min(word.confidence, read.confidence), symbols: [] });
    recovered += 1;
  }
  if (recovered === 0) return { ocr, recovered };
  const text = [...new Set(rewritten.map((w) => w.line))].map((line) => rewritten.filter((w) => w.line === line).map((w) => w.text).join(' ')).join('\n');
  return { ocr: { ...ocr, text, words: rewritten }, recovered };
}

function union(boxes: readonly OcrBox[]): OcrBox {
  return {
    x0: Math.min(...boxes.map((b) => b.x0)),
    y0: Math.min(...boxes.map((b) => b.y0)),
    x1: Math.max(...boxes.map((b) => b.x1)),
    y1: Math.max(...boxes.map((b) => b.y1)),
  };
}

async function readDigits(page: Buffer, box: OcrBox, engine: Pick<OcrEngine, 'recognise'>): Promise<{ text: string; confidence: number } | undefined> {
  const meta = await sharp(page).metadata();
  const pad = Math.round((box.y1 - box.y0) * 0.25) + 2;
  const left = Math.max(0, box.x0 - pad);
  const top = Math.max(0, box.y0 - pad);
  const width = Math.min((meta.width ?? 0) - left, box.x1 - box.x0 + 2 * pad);
  const height = Math.min((meta.height ?? 0) - top, box.y1 - box.y0 + 2 * pad);
  if (width < 4 || height < 4) return undefined;
  // Enlarged, then made black on white if it is dark, before the white margin (pipelines of their own:
  // sharp orders its operations itself; issue 16's "dark" copies).
  const enlarged = await sharp(page)
    .extract({ left, top, width, height })
    .grayscale()
    .resize({ height: Math.max(64, height * 3), kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const crop = await sharp(cropForReading(enlarged.data), { raw: { width: enlarged.info.width, height: enlarged.info.height, channels: 1 } })
    .extend({ top: 24, bottom: 24, left: 24, right: 24, background: '#ffffff' })
    .png()
    .toBuffer();
  const result = await engine.recognise(crop, { segmentation: 'word', charWhitelist: '0123456789' });
  const text = result.text.replace(/\s+/g, '');
  if (!/^\d{1,3}$/.test(text)) return undefined;
  const confidence = result.words?.[0]?.confidence ?? result.confidence;
  return { text, confidence };
}
