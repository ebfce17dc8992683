import { inflateSync } from 'node:zlib';

/**
 * Best-effort text extraction from a PDF, with no dependency: the page content streams
 * (uncompressed or FlateDecode) are scanned for their text-showing operators (`Tj`, `TJ`, `'`, `"`),
 * line moves (`Td`, `TD`, `T*`, `ET`) become line breaks, and strings are decoded through the
 * document's ToUnicode CMaps where there are any (merged: fine for one font or for fonts that agree),
 * else as single-byte (PDFDocEncoding ≈ Latin-1) text.
 *
 * It handles what text-producing tools commonly write (LaTeX, office suites, browsers' "print to
 * PDF"). It does not do OCR (a scanned PDF has no text to find), encrypted PDFs, object streams
 * holding content, or fonts whose codes only their embedded font program can map.
 */
export function pdfToText(bytes: Uint8Array): string {
  const raw = Buffer.from(bytes).toString('latin1');
  if (!raw.startsWith('%PDF-')) throw new Error('not a PDF (no %PDF- header)');
  if (/\/Encrypt\s/.test(raw)) throw new Error('the PDF is encrypted');
  const streams = readStreams(raw);
  const cmap = new Map<string, string>();
  for (const stream of streams) if (stream.includes('begincmap')) mergeCMap(stream, cmap);
  const pages: string[] = [];
  for (const stream of streams) {
    if (stream.includes('begincmap') || !/\b(BT|Tj|TJ)\b/.test(stream)) continue;
    const text = contentStreamText(stream, cmap);
    if (text.trim() !== '') pages.push(text);
  }
  return pages.join('\n\n');
}

/** Every stream's decoded bytes (as Latin-1 text); images and undecodable streams are skipped. */
function readStreams(raw: string): string[] {
  const out: string[] = [];
  const keyword = /stream\r?\n/g;
  let match: RegExpExecArray | null;
  while ((match = keyword.exec(raw)) !== null) {
    if (raw.slice(Math.max(0, match.index - 3), match.index) === 'end') continue;
    const dictStart = raw.lastIndexOf('obj', match.index);
    const dict = dictStart < 0 ? '' : raw.slice(dictStart, match.index);
    const start = match.index + match[0].length;
    const length = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dict);
    let end = length?.[1] !== undefined ? start + Number(length[1]) : -1;
    if (end < start || end > raw.length || !/^\s*endstream/.test(raw.slice(end, end + 20))) end = raw.indexOf('endstream', start);
    if (end < 0) break;
    keyword.lastIndex = end;
    if (/\/Subtype\s*\/Image/.test(dict)) continue;
    const body = Buffer.from(raw.slice(start, end), 'latin1');
    const filters = /\/Filter\s*(\[[^\]]*\]|\/\w+)/.exec(dict)?.[1] ?? '';
    if (filters === '') out.push(body.toString('latin1'));
    else if (/^\/FlateDecode$|^\[\s*\/FlateDecode\s*\]$/.test(filters.trim())) {
      try {
        out.push(inflateSync(body).toString('latin1'));
      } catch {
        // A damaged stream: skip it, keep the rest of the document.
      }
    }
  }
  return out;
}

/** `bfchar` and `bfrange` entries of a ToUnicode CMap: source code (hex) → text. */
function mergeCMap(cmap: string, into: Map<string, string>): void {
  for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const entry of (block[1] ?? '').matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]*)>/g)) {
      into.set((entry[1] ?? '').toLowerCase(), utf16Hex(entry[2] ?? ''));
    }
  }
  for (const block of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const entry of (block[1] ?? '').matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(<[0-9a-fA-F]*>|\[[^\]]*\])/g)) {
      const from = Number.parseInt(entry[1] ?? '0', 16);
      const to = Number.parseInt(entry[2] ?? '0', 16);
      const width = (entry[1] ?? '').length;
      const target = entry[3] ?? '';
      for (let code = from; code <= to && code - from < 65_536; code++) {
        const key = code.toString(16).padStart(width, '0');
        if (target.startsWith('[')) {
          const items = [...target.matchAll(/<([0-9a-fA-F]*)>/g)];
          const item = items[code - from];
          if (item !== undefined) into.set(key, utf16Hex(item[1] ?? ''));
        } else {
          const base = target.slice(1, -1);
          const last = Number.parseInt(base.slice(-4) || '0', 16) + (code - from);
          into.set(key, utf16Hex(base.slice(0, -4) + last.toString(16).padStart(4, '0')));
        }
      }
    }
  }
}

function utf16Hex(hex: string): string {
  const units: number[] = [];
  for (let i = 0; i + 4 <= hex.length; i += 4) units.push(Number.parseInt(hex.slice(i, i + 4), 16));
  return String.fromCharCode(...units);
}

type Token = { kind: 'string'; bytes: number[] } | { kind: 'number'; value: number } | { kind: 'array'; items: Token[] } | { kind: 'op'; value: string };

/** The text a content stream shows, with line breaks where it moves to a new line. */
function contentStreamText(stream: string, cmap: ReadonlyMap<string, string>): string {
  const tokens = tokenize(stream);
  let out = '';
  const operands: Token[] = [];
  const show = (token: Token | undefined): void => {
    if (token?.kind === 'string') out += decodeString(token.bytes, cmap);
  };
  for (const token of tokens) {
    if (token.kind !== 'op') {
      operands.push(token);
      continue;
    }
    switch (token.value) {
      case 'Tj':
        show(operands.at(-1));
        break;
      case "'":
      case '"':
        out += '\n';
        show(operands.at(-1));
        break;
      case 'TJ': {
        const array = operands.at(-1);
        if (array?.kind === 'array') {
          for (const item of array.items) {
            if (item.kind === 'string') out += decodeString(item.bytes, cmap);
            else if (item.kind === 'number' && item.value < -180 && !out.endsWith(' ')) out += ' ';
          }
        }
        break;
      }
      case 'Td':
      case 'TD': {
        const ty = operands.at(-1);
        if (ty?.kind === 'number' && ty.value !== 0) out += '\n';
        else if (!out.endsWith(' ') && !out.endsWith('\n')) out += ' ';
        break;
      }
      case 'T*':
      case 'ET':
        out += '\n';
        break;
      default:
        break;
    }
    operands.length = 0;
  }
  return out
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function decodeString(bytes: readonly number[], cmap: ReadonlyMap<string, string>): string {
  if (cmap.size > 0) {
    const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
    for (const width of [4, 2]) {
      if (hex.length % width !== 0) continue;
      let text = '';
      let mapped = 0;
      for (let i = 0; i < hex.length; i += width) {
        const value = cmap.get(hex.slice(i, i + width));
        if (value !== undefined) mapped++;
        text += value ?? '';
      }
      if (mapped > 0 && mapped >= (hex.length / width) * 0.8) return text;
    }
  }
  return Buffer.from(bytes).toString('latin1');
}

function tokenize(stream: string): Token[] {
  const tokens: Token[] = [];
  const stack: Token[][] = [tokens];
  const push = (token: Token): void => {
    stack[stack.length - 1]!.push(token);
  };
  let i = 0;
  while (i < stream.length) {
    const c = stream[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '%') {
      while (i < stream.length && stream[i] !== '\n' && stream[i] !== '\r') i++;
    } else if (c === '(') {
      const { bytes, next } = literalString(stream, i + 1);
      push({ kind: 'string', bytes });
      i = next;
    } else if (c === '<' && stream[i + 1] === '<') {
      // A dictionary (inline image parameters, marked-content properties): not text.
      const end = stream.indexOf('>>', i + 2);
      i = end < 0 ? stream.length : end + 2;
    } else if (c === '<') {
      const end = stream.indexOf('>', i + 1);
      const hex = stream.slice(i + 1, end < 0 ? stream.length : end).replace(/[^0-9a-fA-F]/g, '');
      const padded = hex.length % 2 === 0 ? hex : `${hex}0`;
      const bytes: number[] = [];
      for (let j = 0; j < padded.length; j += 2) bytes.push(Number.parseInt(padded.slice(j, j + 2), 16));
      push({ kind: 'string', bytes });
      i = end < 0 ? stream.length : end + 1;
    } else if (c === '[') {
      const array: Token = { kind: 'array', items: [] };
      push(array);
      stack.push(array.items);
      i++;
    } else if (c === ']') {
      if (stack.length > 1) stack.pop();
      i++;
    } else if (c === 'B' && stream.startsWith('BI', i) && /\s/.test(stream[i + 2] ?? ' ')) {
      // Inline image data is binary: skip to its end.
      const end = stream.indexOf('EI', i + 2);
      i = end < 0 ? stream.length : end + 2;
    } else if (c === '/') {
      // A name (font, property list): an operand no text operator here needs.
      let j = i + 1;
      while (j < stream.length && !/[\s()<>[\]{}/%]/.test(stream[j]!)) j++;
      i = j;
    } else {
      let j = i;
      while (j < stream.length && !/[\s()<>[\]{}/%]/.test(stream[j]!)) j++;
      if (j === i) j = i + 1;
      const word = stream.slice(i, j);
      if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) push({ kind: 'number', value: Number(word) });
      else if (stack.length === 1) push({ kind: 'op', value: word });
      i = j;
    }
  }
  return tokens;
}

const ESCAPES: Readonly<Record<string, number>> = { n: 10, r: 13, t: 9, b: 8, f: 12, '(': 40, ')': 41, '\\': 92 };

function literalString(stream: string, start: number): { bytes: number[]; next: number } {
  const bytes: number[] = [];
  let depth = 1;
  let i = start;
  while (i < stream.length) {
    const c = stream[i]!;
    if (c === '\\') {
      const n = stream[i + 1] ?? '';
      if (n in ESCAPES) {
        bytes.push(ESCAPES[n]!);
        i += 2;
      } else if (/[0-7]/.test(n)) {
        const octal = /^[0-7]{1,3}/.exec(stream.slice(i + 1, i + 4))?.[0] ?? '0';
        bytes.push(Number.parseInt(octal, 8) & 0xff);
        i += 1 + octal.length;
      } else if (n === '\r' || n === '\n') {
        i += n === '\r' && stream[i + 2] === '\n' ? 3 : 2;
      } else {
        i += 1;
      }
      continue;
    }
    if (c === '(') depth++;
    if (c === ')') {
      depth--;
      if (depth === 0) return { bytes, next: i + 1 };
    }
    bytes.push(c.charCodeAt(0) & 0xff);
    i++;
  }
  return { bytes, next: i };
}
