import sharp from 'sharp';
import { gaussian, seededRandom } from './random.js';

export const FONTS = ['DejaVu Sans', 'DejaVu Serif', 'DejaVu Sans Mono'] as const;
export type Font = (typeof FONTS)[number];

export const LAYOUTS = ['plain', 'worksheet', 'card', 'numbered'] as const;
export type Layout = (typeof LAYOUTS)[number];

export interface RenderRequest {
  readonly text: string;
  readonly font: Font;
  readonly layout: Layout;
  /** Problem number shown by layouts that print one. */
  readonly number: number;
}

export interface RenderedProblem {
  readonly png: Buffer;
  /** Every line of text as drawn, top to bottom: the OCR ground truth. */
  readonly lines: readonly string[];
}

interface LayoutSpec {
  readonly width: number;
  readonly fontSize: number;
  readonly padding: number;
  readonly lineHeight: number;
  readonly align: 'start' | 'middle';
  readonly header?: (n: number) => string;
  readonly prefix?: (n: number) => string;
  readonly frame: boolean;
  readonly answerLine: boolean;
}

const SPECS: Record<Layout, LayoutSpec> = {
  plain: { width: 1000, fontSize: 32, padding: 60, lineHeight: 1.45, align: 'start', frame: false, answerLine: false },
  worksheet: {
    width: 1100,
    fontSize: 30,
    padding: 70,
    lineHeight: 1.5,
    align: 'start',
    header: (n) => `Problem ${n}.`,
    frame: false,
    answerLine: true,
  },
  card: { width: 900, fontSize: 30, padding: 80, lineHeight: 1.5, align: 'middle', frame: true, answerLine: false },
  numbered: { width: 1000, fontSize: 31, padding: 64, lineHeight: 1.6, align: 'start', prefix: (n) => `${n}. `, frame: false, answerLine: false },
};

const CHAR_WIDTH: Record<Font, number> = { 'DejaVu Sans': 0.6, 'DejaVu Serif': 0.6, 'DejaVu Sans Mono': 0.61 };

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function wrap(text: string, maxChars: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/)) {
    if (current !== '' && current.length + 1 + word.length > maxChars) {
      lines.push(current);
      current = word;
    } else {
      current = current === '' ? word : `${current} ${word}`;
    }
  }
  if (current !== '') lines.push(current);
  return lines;
}

/** Renders a problem as a printed page would look: SVG text rasterised by librsvg through sharp. */
export async function renderProblem(request: RenderRequest): Promise<RenderedProblem> {
  const spec = SPECS[request.layout];
  const usable = spec.width - 2 * spec.padding - (spec.prefix === undefined ? 0 : spec.fontSize * 1.5);
  const maxChars = Math.floor(usable / (spec.fontSize * CHAR_WIDTH[request.font]));
  const body = wrap(request.text, maxChars);
  const lines: string[] = [];
  if (spec.header !== undefined) lines.push(spec.header(request.number));
  body.forEach((line, i) => lines.push(i === 0 && spec.prefix !== undefined ? `${spec.prefix(request.number)}${line}` : line));
  const step = spec.fontSize * spec.lineHeight;
  const height = Math.round(2 * spec.padding + lines.length * step + (spec.answerLine ? step * 1.5 : 0));
  const x = spec.align === 'middle' ? spec.width / 2 : spec.padding;
  const texts = lines
    .map((line, i) => {
      const y = spec.padding + spec.fontSize + i * step;
      const bold = spec.header !== undefined && i === 0 ? ' font-weight="bold"' : '';
      const indent = spec.prefix !== undefined && i > 0 ? spec.fontSize * 1.5 : 0;
      return `<text x="${x + indent}" y="${y}" text-anchor="${spec.align}" font-family="${request.font}" font-size="${spec.fontSize}"${bold} fill="#111">${escapeXml(line)}</text>`;
    })
    .join('');
  const frame = spec.frame
    ? `<rect x="${spec.padding / 3}" y="${spec.padding / 3}" width="${spec.width - (2 * spec.padding) / 3}" height="${height - (2 * spec.padding) / 3}" fill="none" stroke="#333" stroke-width="3" rx="12"/>`
    : '';
  const answer = spec.answerLine
    ? `<line x1="${spec.padding}" x2="${spec.width * 0.6}" y1="${height - spec.padding}" y2="${height - spec.padding}" stroke="#222" stroke-width="2"/>`
    : '';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${spec.width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/>${frame}${texts}${answer}</svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  return { png, lines };
}

export const TRANSFORMS = ['jpeg40', 'half', 'crop5', 'brighter20', 'darker20', 'rotate2', 'rotate-3', 'noise', 'photo'] as const;
export type TransformName = (typeof TRANSFORMS)[number];

/** The degraded copies a re-submitted problem arrives as: recompressed, resized, cropped, lit, tilted, noisy. */
export async function transformCopy(png: Buffer, transform: TransformName, seed: number): Promise<Buffer> {
  const meta = await sharp(png).metadata();
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  const white = { r: 255, g: 255, b: 255 };
  switch (transform) {
    case 'jpeg40':
      return sharp(png).jpeg({ quality: 40 }).toBuffer();
    case 'half':
      return sharp(png).resize({ width: Math.round(width / 2) }).png().toBuffer();
    case 'crop5': {
      // 5 % off the left and the top: the content moves, which is what throws a plain pHash off.
      const left = Math.round(width * 0.05);
      const top = Math.round(height * 0.05);
      return sharp(png).extract({ left, top, width: width - left, height: height - top }).png().toBuffer();
    }
    case 'brighter20':
      return sharp(png).modulate({ brightness: 1.2 }).png().toBuffer();
    case 'darker20':
      return sharp(png).modulate({ brightness: 0.8 }).png().toBuffer();
    case 'rotate2':
      return sharp(png).rotate(2, { background: white }).png().toBuffer();
    case 'rotate-3':
      return sharp(png).rotate(-3, { background: white }).png().toBuffer();
    case 'noise':
      return addNoise(png, 12, seed);
    case 'photo': {
      // Several at once, as a phone photo of a printout: tilt, softer light, noise, JPEG.
      const tilted = await sharp(png).rotate(2.5, { background: white }).modulate({ brightness: 0.85 }).png().toBuffer();
      const noisy = await addNoise(tilted, 8, seed);
      return sharp(noisy).jpeg({ quality: 60 }).toBuffer();
    }
  }
}

export async function addNoise(png: Buffer, sigma: number, seed: number): Promise<Buffer> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const random = seededRandom(seed);
  const out = Buffer.alloc(data.length);
  for (let i = 0; i < data.length; i += 1) out[i] = Math.max(0, Math.min(255, Math.round((data[i] ?? 0) + sigma * gaussian(random))));
  return sharp(out, { raw: { width: info.width, height: info.height, channels: info.channels } }).png().toBuffer();
}
