import { loadSharp } from '@openpaw/providers';
import { type StepsDocument } from '@openpaw/contracts';

export const FRAME_WIDTH = 1280;
export const FRAME_HEIGHT = 720;

/** What one frame shows: a small label, a heading and a body. */
export interface FrameContent {
  readonly label: string;
  readonly heading: string;
  readonly body: string;
  readonly footer: string;
}

const MARGIN = 80;
const FONT = "'DejaVu Sans', 'Liberation Sans', Arial, sans-serif";
const HEADING = { size: 50, lineHeight: 62, maxLines: 2, charsPerLine: 38 } as const;
const BODY = { size: 34, lineHeight: 50, maxLines: 8, charsPerLine: 64 } as const;

/** The frames of a solution video: the problem, one per step, the final answer. */
export function framesFor(doc: StepsDocument): FrameContent[] {
  const total = doc.steps.length;
  const footer = `${doc.subject === '' ? 'Solution' : doc.subject} · ${doc.model}`;
  return [
    { label: 'PROBLEM', heading: 'Problem', body: plainMath(doc.problem), footer },
    ...doc.steps.map((step, i) => ({ label: `STEP ${i + 1} OF ${total}`, heading: plainMath(step.title), body: plainMath(step.detail), footer })),
    { label: 'FINAL ANSWER', heading: 'Final answer', body: plainMath(doc.finalAnswer), footer },
  ];
}

/** The frame as SVG (text is escaped; nothing in it refers outside the document). */
export function frameSvg(frame: FrameContent): string {
  const heading = wrap(frame.heading, HEADING.charsPerLine, HEADING.maxLines);
  const body = wrap(frame.body, BODY.charsPerLine, BODY.maxLines);
  const headingTop = 200;
  const bodyTop = headingTop + heading.length * HEADING.lineHeight + 40;
  const tspans = (lines: readonly string[], lineHeight: number): string =>
    lines.map((line, i) => `<tspan x="${MARGIN}" dy="${i === 0 ? 0 : lineHeight}">${escapeXml(line)}</tspan>`).join('');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${FRAME_WIDTH}" height="${FRAME_HEIGHT}" viewBox="0 0 ${FRAME_WIDTH} ${FRAME_HEIGHT}">`,
    `<rect width="${FRAME_WIDTH}" height="${FRAME_HEIGHT}" fill="#111827"/>`,
    `<rect width="${FRAME_WIDTH}" height="10" fill="#4f8cff"/>`,
    `<text x="${MARGIN}" y="120" font-family="${FONT}" font-size="26" letter-spacing="3" fill="#8da2c0">${escapeXml(frame.label)}</text>`,
    `<text x="${MARGIN}" y="${headingTop}" font-family="${FONT}" font-size="${HEADING.size}" font-weight="bold" fill="#ffffff">${tspans(heading, HEADING.lineHeight)}</text>`,
    `<text x="${MARGIN}" y="${bodyTop}" font-family="${FONT}" font-size="${BODY.size}" fill="#dbe4f0">${tspans(body, BODY.lineHeight)}</text>`,
    `<text x="${MARGIN}" y="${FRAME_HEIGHT - 40}" font-family="${FONT}" font-size="20" fill="#5d6f8c">${escapeXml(frame.footer)}</text>`,
    `</svg>`,
  ].join('\n');
}

/** Draws the frame: SVG rendered by sharp (librsvg) to a 1280×720 PNG. */
export async function renderFrame(frame: FrameContent): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp(Buffer.from(frameSvg(frame)), { density: 72 })
    .resize(FRAME_WIDTH, FRAME_HEIGHT, { fit: 'fill' })
    .flatten({ background: '#111827' })
    .png()
    .toBuffer();
}

/** Greedy word wrap to `width` characters and at most `maxLines` lines (the last one ellipsised when cut). */
export function wrap(text: string, width: number, maxLines: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\n+/)) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter((w) => w !== '')) {
      for (const piece of chunk(word, width)) {
        if (line === '') line = piece;
        else if (line.length + 1 + piece.length <= width) line += ` ${piece}`;
        else {
          lines.push(line);
          line = piece;
        }
      }
    }
    if (line !== '') lines.push(line);
  }
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  const last = kept[maxLines - 1] ?? '';
  kept[maxLines - 1] = `${last.length >= width ? last.slice(0, width - 1) : last}…`;
  return kept;
}

function chunk(word: string, width: number): string[] {
  if (word.length <= width) return [word];
  const pieces: string[] = [];
  for (let i = 0; i < word.length; i += width) pieces.push(word.slice(i, i + width));
  return pieces;
}

/** LaTeX a model may have written, read aloud as plain text: delimiters dropped, common commands as symbols. */
export function plainMath(text: string): string {
  let out = text
    .replace(/\\\(|\\\)|\\\[|\\\]|\$\$/g, '')
    // `$...$` as in pandoc (no space inside the dollars, no digit after), so "$5 and $10" keeps its dollars.
    .replace(/\$(?!\s)([^$\n]+?)(?<!\s)\$(?!\d)/g, '$1');
  for (let i = 0; i < 5 && /\\(?:d|t)?frac\{[^{}]*\}\{[^{}]*\}|\\sqrt\{[^{}]*\}/.test(out); i++) {
    out = out.replace(/\\(?:d|t)?frac\{([^{}]*)\}\{([^{}]*)\}/g, (_m, a: string, b: string) => `${group(a)}/${group(b)}`);
    out = out.replace(/\\sqrt\{([^{}]*)\}/g, (_m, a: string) => `√${group(a)}`);
  }
  return out
    .replace(/\\(?:left|right|displaystyle|textstyle|text|mathrm|mathbf|mathit|operatorname)(?![a-zA-Z])/g, '')
    .replace(/\\([a-zA-Z]+)/g, (_m, name: string) => SYMBOLS[name] ?? name)
    .replace(/\\[,;:! ]/g, ' ')
    .replace(/[{}]/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

const SYMBOLS: Readonly<Record<string, string>> = {
  cdot: '·',
  times: '×',
  div: '÷',
  pm: '±',
  le: '≤',
  leq: '≤',
  ge: '≥',
  geq: '≥',
  ne: '≠',
  neq: '≠',
  approx: '≈',
  infty: '∞',
  pi: 'π',
  theta: 'θ',
  alpha: 'α',
  beta: 'β',
  Rightarrow: '⇒',
  implies: '⇒',
  to: '→',
};

function group(expr: string): string {
  return /^[\w.]+$/.test(expr.trim()) ? expr.trim() : `(${expr.trim()})`;
}

function escapeXml(text: string): string {
  return (
    text
      .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c)
      // Characters XML 1.0 does not allow (librsvg refuses the whole document otherwise).
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
  );
}
