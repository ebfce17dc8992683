/**
 * Text folding shared by the exports (BibTeX keys) and the research service (dedup, the local scorer,
 * the library): NFKD with accents dropped, LaTeX braces and commands removed, lower case,
 * punctuation to spaces, whitespace collapsed.
 */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/\\[a-zA-Z]+\s*/g, ' ')
    .replace(/[{}]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** arXiv's own DOIs (10.48550/arXiv.*) name the preprint, not a publication. */
export function isArxivDoi(doi: string | null): boolean {
  return doi !== null && doi.startsWith('10.48550/arxiv.');
}
