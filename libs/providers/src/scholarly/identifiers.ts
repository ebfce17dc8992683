/**
 * Identifier normalisation shared by the adapters and dedup: one spelling per DOI, arXiv id and PMID,
 * so `https://doi.org/10.1000/ABC`, `doi:10.1000/abc` and `10.1000/abc` are the same paper.
 */

const DOI_PREFIXES = /^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:\s*|info:doi\/)/i;
const DOI_SHAPE = /^10\.\d{4,9}\/\S+$/;

/** Lower case, without resolver or `doi:` prefix, URL-decoded, without trailing punctuation; null if not a DOI. */
export function normaliseDoi(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined) return null;
  let value = raw.trim().replace(DOI_PREFIXES, '');
  try {
    value = decodeURIComponent(value);
  } catch {
    // Not percent-encoded after all: keep it as it is.
  }
  value = value.trim().replace(/[.,;:)\]}>'"]+$/, '').toLowerCase();
  return DOI_SHAPE.test(value) ? value : null;
}

const NEW_ARXIV = /^(\d{4}\.\d{4,5})(?:v\d+)?$/i;
const OLD_ARXIV = /^([a-z-]+(?:\.[a-z]{2})?\/\d{7})(?:v\d+)?$/i;
const ARXIV_DOI = /^10\.48550\/arxiv\.(.+)$/i;

/** `2101.00001`, `hep-th/9901001` (no `arXiv:` prefix, no URL, no version); null if not an arXiv id. */
export function normaliseArxivId(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined) return null;
  let value = raw.trim();
  const fromDoi = ARXIV_DOI.exec(normaliseDoi(value) ?? '');
  if (fromDoi?.[1] !== undefined) value = fromDoi[1];
  value = value
    .replace(/^https?:\/\/(?:www\.|export\.)?arxiv\.org\/(?:abs|pdf)\//i, '')
    .replace(/\.pdf$/i, '')
    .replace(/^arxiv:\s*/i, '');
  const modern = NEW_ARXIV.exec(value);
  if (modern?.[1] !== undefined) return modern[1];
  const old = OLD_ARXIV.exec(value);
  if (old?.[1] !== undefined) return old[1].toLowerCase();
  return null;
}

/** Digits only (from `PMID: 123`, `https://pubmed.ncbi.nlm.nih.gov/123/`); null if not a PMID. */
export function normalisePmid(raw: string | number | null | undefined): string | null {
  if (raw === null || raw === undefined) return null;
  const value = String(raw)
    .trim()
    .replace(/^https?:\/\/(?:www\.)?(?:pubmed\.ncbi\.nlm\.nih\.gov|ncbi\.nlm\.nih\.gov\/pubmed)\//i, '')
    .replace(/^pmid:\s*/i, '')
    .replace(/\/$/, '');
  return /^\d{1,10}$/.test(value) ? value.replace(/^0+(?=\d)/, '') : null;
}

/** The first DOI found inside a URL or text (`https://link.springer.com/article/10.1007/s1-2`), normalised. */
export function findDoi(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  const match = /\b10\.\d{4,9}\/[^\s"<>?#]+/i.exec(text);
  return match === null ? null : normaliseDoi(match[0]);
}

/** The arXiv id of an arxiv.org URL, normalised. */
export function findArxivId(url: string | null | undefined): string | null {
  if (url === null || url === undefined) return null;
  const match = /arxiv\.org\/(?:abs|pdf)\/([^\s?#]+)/i.exec(url);
  return match?.[1] === undefined ? null : normaliseArxivId(match[1]);
}
