import type { Paper } from '@openpaw/contracts';
import { paperIdOf } from '../papers/paper-id.js';

/**
 * Drops papers the user rejected in an earlier iteration. A paper matches a rejected id by its own id
 * or by any identifier it has (`doi:`, `arxiv:`, `pmid:`), so one found later with more identifiers
 * (a DOI where there was only an arXiv id) is still recognised, and by any earlier id the alias table
 * gives it (`earlierIds`, from `deduplicate`).
 */
export function excludeRejected(papers: readonly Paper[], rejectedIds: readonly string[], earlierIds: ReadonlyMap<string, readonly string[]> = new Map()): { kept: Paper[]; excluded: number } {
  if (rejectedIds.length === 0) return { kept: [...papers], excluded: 0 };
  const rejected = new Set(rejectedIds);
  const kept = papers.filter((p) => ![...identities(p), ...(earlierIds.get(p.id) ?? [])].some((id) => rejected.has(id)));
  return { kept, excluded: papers.length - kept.length };
}

function identities(p: Paper): string[] {
  return [
    p.id,
    ...(p.doi === null ? [] : [`doi:${p.doi}`]),
    ...(p.arxivId === null ? [] : [`arxiv:${p.arxivId}`]),
    ...(p.pmid === null ? [] : [`pmid:${p.pmid}`]),
    paperIdOf({ doi: null, arxivId: null, pmid: null, title: p.title }),
  ];
}
