import type { SkillProvenance, Theme } from '@openpaw/contracts';
import { contentWords, stem } from '../text/normalise.js';
import type { Themer } from './themer.js';

export const LOCAL_THEMER_PROVENANCE: SkillProvenance = {
  model: 'local/term-groups',
  local: true,
  method: 'LOCAL term grouping (no LLM): papers grouped by the most shared title words that are not search terms',
  costUsd: 0,
};

/**
 * Local themes: the title words (stemmed) shared by the most papers, leaving out the search's own
 * terms (every paper has those); each paper joins the first theme whose word it has. At most six
 * themes of two or more papers; the summary says how the group was made.
 */
export class LocalThemer implements Themer {
  themes(input: Parameters<Themer['themes']>[0]): Promise<{ themes: Theme[]; provenance: SkillProvenance }> {
    const searchTerms = new Set(input.strategy.queries.flatMap((q) => q.keywords).flatMap(contentWords).map(stem));
    const wordsOf = new Map<string, Set<string>>();
    const surface = new Map<string, string>();
    for (const paper of input.papers) {
      const stems = new Set<string>();
      for (const word of contentWords(paper.title)) {
        const s = stem(word);
        if (searchTerms.has(s) || word.length < 4) continue;
        stems.add(s);
        if (!surface.has(s)) surface.set(s, word);
      }
      wordsOf.set(paper.id, stems);
    }
    const unassigned = new Set(input.papers.map((p) => p.id));
    const themes: Theme[] = [];
    while (themes.length < 6) {
      const counts = new Map<string, number>();
      for (const id of unassigned) for (const s of wordsOf.get(id) ?? []) counts.set(s, (counts.get(s) ?? 0) + 1);
      const best = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
      if (best === undefined || best[1] < 2) break;
      const members = input.papers.filter((p) => unassigned.has(p.id) && (wordsOf.get(p.id)?.has(best[0]) ?? false)).map((p) => p.id);
      for (const id of members) unassigned.delete(id);
      const name = surface.get(best[0]) ?? best[0];
      themes.push({ name, summary: `${members.length} papers with "${name}" in the title (local term grouping, no LLM).`, paperIds: members });
    }
    return Promise.resolve({ themes, provenance: LOCAL_THEMER_PROVENANCE });
  }
}
