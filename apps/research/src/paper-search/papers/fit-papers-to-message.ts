import { MAX_PAPERS_JSON_BYTES, type Paper } from '@openpaw/contracts';

/**
 * Keeps a list of papers within what one message may carry: first abstracts are cut to 400
 * characters, then papers are dropped from the end (lists are best first, or interleaved by source).
 * Says how many were dropped, so the caller can report it.
 */
export function fitPapersToMessage<P extends Paper>(papers: readonly P[], maxBytes = MAX_PAPERS_JSON_BYTES): { papers: P[]; dropped: number } {
  const size = (list: readonly P[]): number => Buffer.byteLength(JSON.stringify(list), 'utf8');
  if (size(papers) <= maxBytes) return { papers: [...papers], dropped: 0 };
  const shortened = papers.map((p) => (p.abstract !== null && p.abstract.length > 400 ? { ...p, abstract: `${p.abstract.slice(0, 399)}…` } : p));
  let kept = shortened.length;
  let bytes = size(shortened);
  while (kept > 0 && bytes > maxBytes) {
    bytes -= Buffer.byteLength(JSON.stringify(shortened[kept - 1]), 'utf8') + 1;
    kept -= 1;
  }
  return { papers: shortened.slice(0, kept), dropped: papers.length - kept };
}
