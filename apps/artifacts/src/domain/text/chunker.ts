import { createHash } from 'node:crypto';

/** Part of every chunk's embedding version: a different chunker makes different chunks. */
export const CHUNKER_VERSION = 'chunker-v1';

export interface ChunkingOptions {
  /** Upper bound of a chunk's length in characters (a longer sentence is cut at a word boundary). */
  readonly maxChars: number;
}

export const DEFAULT_CHUNKING: ChunkingOptions = { maxChars: 1_000 };

/**
 * Splits normalised text into chunks of whole paragraphs (or, for long paragraphs, whole sentences)
 * of at most `maxChars`. Deterministic: the same text always gives the same chunks.
 */
export function chunkText(text: string, options: ChunkingOptions = DEFAULT_CHUNKING): string[] {
  const pieces = text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, ' ').trim())
    .filter((p) => p !== '')
    .flatMap((p) => (p.length <= options.maxChars ? [p] : splitLong(p, options.maxChars)));
  const chunks: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current === '') current = piece;
    else if (current.length + 2 + piece.length <= options.maxChars) current = `${current}\n\n${piece}`;
    else {
      chunks.push(current);
      current = piece;
    }
  }
  if (current !== '') chunks.push(current);
  return chunks;
}

/** Sentences packed up to `maxChars`; a sentence longer than that is cut at word boundaries. */
function splitLong(paragraph: string, maxChars: number): string[] {
  const sentences = paragraph.split(/(?<=[.!?])\s+(?=["'(\p{Lu}\d])/u).flatMap((s) => (s.length <= maxChars ? [s] : cutWords(s, maxChars)));
  const out: string[] = [];
  let current = '';
  for (const sentence of sentences) {
    if (current === '') current = sentence;
    else if (current.length + 1 + sentence.length <= maxChars) current = `${current} ${sentence}`;
    else {
      out.push(current);
      current = sentence;
    }
  }
  if (current !== '') out.push(current);
  return out;
}

function cutWords(text: string, maxChars: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    const cut = rest.lastIndexOf(' ', maxChars);
    const at = cut > maxChars / 2 ? cut : maxChars;
    out.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest !== '') out.push(rest);
  return out;
}

/**
 * A chunk's id: stable for the same source, position and text (`chk_` + 24 hex digits of sha256),
 * so re-indexing unchanged content keeps every id, and changed content gets new ones.
 */
export function chunkIdOf(sourceId: string, ordinal: number, text: string): string {
  const hash = createHash('sha256').update(`${sourceId}\n${ordinal}\n${text}`).digest('hex');
  return `chk_${hash.slice(0, 24)}`;
}
