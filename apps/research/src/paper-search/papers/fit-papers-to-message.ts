import { MAX_PAPERS_JSON_BYTES, type Paper, type ResultCuts } from '@openpaw/contracts';

/**
 * Keeps a list of papers within what one message may carry: first abstracts are cut to 400
 * characters, then left out from the end, and only then are papers dropped from the end (lists are
 * best first, or interleaved by source): a paper without its abstract can still be seen and marked.
 * Says how many were dropped and how many abstracts it shortened (`cuts`), so the caller reports them.
 */
export function fitPapersToMessage<P extends Paper>(papers: readonly P[], maxBytes = MAX_PAPERS_JSON_BYTES): { papers: P[]; dropped: number; cuts: ResultCuts } {
  const size = (list: readonly P[]): number => Buffer.byteLength(JSON.stringify(list), 'utf8');
  if (size(papers) <= maxBytes) return { papers: [...papers], dropped: 0, cuts: { papersLeftOut: 0, abstractsShortened: 0, authorListsShortened: 0 } };
  const shortened = papers.map((p) => (p.abstract !== null && p.abstract.length > 400 ? { ...p, abstract: `${p.abstract.slice(0, 399)}…` } : p));
  let bytes = size(shortened);
  for (let i = shortened.length - 1; i >= 0 && bytes > maxBytes; i--) {
    const p = shortened[i]!;
    if (p.abstract === null) continue;
    const withoutAbstract = { ...p, abstract: null };
    bytes -= Buffer.byteLength(JSON.stringify(p), 'utf8') - Buffer.byteLength(JSON.stringify(withoutAbstract), 'utf8');
    shortened[i] = withoutAbstract;
  }
  let kept = shortened.length;
  while (kept > 0 && bytes > maxBytes) {
    bytes -= Buffer.byteLength(JSON.stringify(shortened[kept - 1]), 'utf8') + 1;
    kept -= 1;
  }
  const abstractsShortened = shortened.slice(0, kept).filter((p, i) => p !== papers[i]).length;
  return { papers: shortened.slice(0, kept), dropped: papers.length - kept, cuts: { papersLeftOut: papers.length - kept, abstractsShortened, authorListsShortened: 0 } };
}
