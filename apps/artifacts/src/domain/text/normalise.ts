/**
 * Source text as it is chunked and indexed: Unicode NFKC (ligatures, full-width forms folded),
 * line breaks unified, control characters dropped, runs of spaces folded, each line trimmed, at most
 * one blank line between paragraphs. Pure and idempotent.
 */
export function normaliseSourceText(raw: string): string {
  return raw
    .normalize('NFKC')
    .replace(/\r\n?/g, '\n')
    .replace(/\u00ad/g, '')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A title from the first line of the text (at most 80 characters), for sources given without one. */
export function titleFromText(text: string): string {
  const first = text.split('\n').find((line) => line.trim() !== '') ?? 'Untitled source';
  return first.length <= 80 ? first : `${first.slice(0, 77).trimEnd()}...`;
}
