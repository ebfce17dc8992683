import sharp from 'sharp';
import { gaussian, seededRandom } from './random.js';

/** Every font on this machine's fontconfig that prints maths legibly; "handwriting-like" jitters one of them. */
export const MATHS_FONTS = ['DejaVu Sans', 'DejaVu Serif', 'DejaVu Sans Mono', 'DejaVu Sans Condensed', 'DejaVu Serif Condensed', 'handwriting-like'] as const;
export type MathsFont = (typeof MATHS_FONTS)[number];

export const MATHS_LAYOUTS = ['plain', 'worksheet', 'card', 'numbered'] as const;
export type MathsLayout = (typeof MATHS_LAYOUTS)[number];

export interface MathsRenderRequest {
  /** The problem; `^n` is drawn as a raised, smaller n. */
  readonly text: string;
  readonly font: MathsFont;
  readonly layout: MathsLayout;
  readonly number: number;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** SVG text runs with exponents raised: "2^10 + 3^5" → 2, raised 10, " + 3", raised 5. */
function withExponents(text: string, fontSize: number): string {
  const rise = Math.round(fontSize * 0.4);
  return escapeXml(text).replace(/\^(\d+)/g, (_m, exp: string) => `<tspan dy="-${rise}" font-size="${Math.round(fontSize * 0.65)}">${exp}</tspan><tspan dy="${rise}">\u200b</tspan>`);
}

/**
 * The handwriting-like line: every character drawn on its own with a seeded wobble of baseline, angle,
 * size and spacing (librsvg ignores per-glyph `rotate` lists), exponents raised and smaller.
 */
function handwritten(text: string, x: number, y: number, fontSize: number, seed: number): string {
  const random = seededRandom(seed);
  let cursor = x;
  let raised = false;
  const glyphs: string[] = [];
  for (const c of text) {
    if (c === '^') {
      raised = true;
      continue;
    }
    if (raised && !/\d/.test(c)) raised = false;
    const size = fontSize * (raised ? 0.65 : 1) * (1 + gaussian(random) * 0.05);
    const gx = cursor + gaussian(random) * 1.2;
    const gy = y - (raised ? fontSize * 0.4 : 0) + gaussian(random) * 1.8;
    const angle = gaussian(random) * 4;
    if (c !== ' ') glyphs.push(`<text x="${gx.toFixed(1)}" y="${gy.toFixed(1)}" font-family="DejaVu Sans" font-size="${size.toFixed(1)}" fill="#1a1a40" transform="rotate(${angle.toFixed(1)} ${gx.toFixed(1)} ${gy.toFixed(1)})">${escapeXml(c)}</text>`);
    cursor += size * (c === ' ' ? 0.42 : /[il.,1]/.test(c) ? 0.38 : /[mw]/.test(c) ? 0.82 : 0.6) + gaussian(random) * 1.0;
  }
  return glyphs.join('');
}

/**
 * A printed maths problem as a page would carry it (plain, worksheet with a header and answer line,
 * framed card, numbered item), SVG rasterised by librsvg through sharp, with true superscripts.
 */
export async function renderMathsProblem(request: MathsRenderRequest): Promise<Buffer> {
  const fontSize = request.layout === 'card' ? 34 : 32;
  const family = request.font === 'handwriting-like' ? 'DejaVu Sans' : request.font.replace(' Condensed', '');
  const stretch = request.font.endsWith('Condensed') ? ' font-stretch="condensed"' : '';
  const width = 1000;
  const padding = 60;
  const lines: string[] = [];
  if (request.layout === 'worksheet') lines.push(`Problem ${request.number}.`);
  lines.push(request.layout === 'numbered' ? `${request.number}. ${request.text}` : request.text);
  const step = fontSize * 1.6;
  const height = Math.round(2 * padding + lines.length * step + (request.layout === 'worksheet' ? step : 0));
  const anchor = request.layout === 'card' ? 'middle' : 'start';
  const x = request.layout === 'card' ? width / 2 : padding;
  const texts = lines
    .map((line, i) => {
      const y = padding + fontSize + i * step;
      if (request.font === 'handwriting-like' && i === lines.length - 1) return handwritten(line, padding, y, fontSize, request.number);
      return `<text x="${x}" y="${y}" text-anchor="${anchor}" font-family="${family}"${stretch} font-size="${fontSize}" fill="#151515">${withExponents(line, fontSize)}</text>`;
    })
    .join('');
  const frame = request.layout === 'card' ? `<rect x="20" y="20" width="${width - 40}" height="${height - 40}" fill="none" stroke="#333" stroke-width="3" rx="12"/>` : '';
  const answer = request.layout === 'worksheet' ? `<line x1="${padding}" x2="${width * 0.6}" y1="${height - padding}" y2="${height - padding}" stroke="#222" stroke-width="2"/>` : '';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/>${frame}${texts}${answer}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** The copies issue 16 measures: recompressed, shrunk, cropped, tilted, darkened, noisy, upscaled, grey. */
export const COPY_DEGRADATIONS = ['jpeg30', 'size40', 'crop7', 'rotate3', 'dark', 'noise', 'upscaled', 'gray'] as const;
export type CopyDegradation = (typeof COPY_DEGRADATIONS)[number];

export async function degradeCopy(png: Buffer, degradation: CopyDegradation, seed: number): Promise<Buffer> {
  const meta = await sharp(png).metadata();
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  switch (degradation) {
    case 'jpeg30':
      return sharp(png).jpeg({ quality: 30 }).toBuffer();
    case 'size40':
      return sharp(png).resize({ width: Math.round(width * 0.4) }).png().toBuffer();
    case 'crop7': {
      const left = Math.round(width * 0.07);
      const top = Math.round(height * 0.07);
      return sharp(png).extract({ left, top, width: width - left, height: height - top }).png().toBuffer();
    }
    case 'rotate3':
      return sharp(png).rotate(3, { background: { r: 255, g: 255, b: 255 } }).png().toBuffer();
    case 'dark':
      return sharp(png).modulate({ brightness: 0.6 }).png().toBuffer();
    case 'noise': {
      const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const random = seededRandom(seed);
      const out = Buffer.alloc(data.length);
      for (let i = 0; i < data.length; i += 1) out[i] = Math.max(0, Math.min(255, Math.round((data[i] ?? 0) + 14 * gaussian(random))));
      return sharp(out, { raw: { width: info.width, height: info.height, channels: info.channels } }).png().toBuffer();
    }
    case 'upscaled':
      return sharp(png).resize({ width: Math.round(width * 1.8) }).png().toBuffer();
    case 'gray':
      return sharp(png).grayscale().png().toBuffer();
  }
}
