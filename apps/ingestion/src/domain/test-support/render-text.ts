import sharp from 'sharp';

export interface TextImageOptions {
  readonly width?: number;
  readonly fontSize?: number;
  readonly font?: string;
  readonly padding?: number;
  /** Draw a frame and an answer rule, the layout elements a crop can clip. */
  readonly decorations?: boolean;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Renders lines of text as a printed page (SVG through librsvg), the fixture images of the specs. */
export async function renderTextImage(lines: readonly string[], options: TextImageOptions = {}): Promise<Buffer> {
  const width = options.width ?? 900;
  const fontSize = options.fontSize ?? 32;
  const padding = options.padding ?? 60;
  const font = options.font ?? 'DejaVu Sans';
  const step = fontSize * 1.5;
  const height = Math.round(2 * padding + lines.length * step + (options.decorations === true ? step : 0));
  const texts = lines
    .map((line, i) => `<text x="${padding}" y="${padding + fontSize + i * step}" font-family="${font}" font-size="${fontSize}" fill="#111">${escapeXml(line)}</text>`)
    .join('');
  const decorations =
    options.decorations === true
      ? `<rect x="20" y="20" width="${width - 40}" height="${height - 40}" fill="none" stroke="#222" stroke-width="3"/>` +
        `<line x1="${padding}" x2="${width / 2}" y1="${height - padding}" y2="${height - padding}" stroke="#222" stroke-width="2"/>`
      : '';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/>${texts}${decorations}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

export const SAMPLE_PROBLEM = ['Solve for x: 3x + 7 = 22.', 'Show each step of your work', 'and check the answer.'];

/** One line of maths with true superscripts (`^n` drawn raised and smaller, as a page prints "2¹⁰"). */
export async function renderPowersLine(text: string, options: Pick<TextImageOptions, 'font' | 'fontSize' | 'width'> = {}): Promise<Buffer> {
  const fontSize = options.fontSize ?? 32;
  const width = options.width ?? 900;
  const rise = Math.round(fontSize * 0.4);
  const runs = escapeXml(text).replace(/\^(\d+)/g, (_m, exp: string) => `<tspan dy="-${rise}" font-size="${Math.round(fontSize * 0.65)}">${exp}</tspan><tspan dy="${rise}">\u200b</tspan>`);
  const height = Math.round(fontSize * 4);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/><text x="60" y="${fontSize * 2.2}" font-family="${options.font ?? 'DejaVu Sans'}" font-size="${fontSize}" fill="#111">${runs}</text></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}
