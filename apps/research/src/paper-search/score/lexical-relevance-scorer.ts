import type { ScoredPaper, SkillProvenance } from '@openpaw/contracts';
import { contentWords, foldText, stem } from '../text/normalise.js';
import { tagsByRules } from './paper-tags.js';
import { byRelevance, type RelevanceScorer, type ScoringInput } from './relevance-scorer.js';

export const LEXICAL_SCORER_PROVENANCE: SkillProvenance = {
  model: 'local/lexical-overlap',
  local: true,
  method: 'LOCAL lexical overlap (no LLM): stemmed strategy and intent terms each counts 1 when in the title, 0.6 when only in the abstract or venue; excluded terms cut the score',
  costUsd: 0,
};

/**
 * The local relevance scorer: how many of the strategy's and intent's terms (stemmed) a paper's title
 * and abstract contain (a title match counts 1, an abstract-only match 0.6). A rationale names the matched and missing terms and says the score is
 * lexical. A paper mentioning an excluded term keeps a third of its score.
 */
export class LexicalRelevanceScorer implements RelevanceScorer {
  score(input: ScoringInput): Promise<{ papers: ScoredPaper[]; provenance: SkillProvenance }> {
    const terms = queryTerms(input);
    // Excluded terms match on every word, stopwords included ("survey" is a stopword for matching queries).
    const excluded = input.strategy.excludedTerms.map((term) => ({ term, stems: foldText(term).split(' ').filter((w) => w !== '').map(stem) })).filter((t) => t.stems.length > 0);
    const papers = input.papers.map((paper): ScoredPaper => {
      const title = new Set(contentWords(paper.title).map(stem));
      const body = new Set(contentWords(`${paper.abstract ?? ''} ${paper.venue ?? ''}`).map(stem));
      const inTitle = terms.filter((t) => title.has(t.stem));
      const inBody = terms.filter((t) => !title.has(t.stem) && body.has(t.stem));
      const missing = terms.filter((t) => !title.has(t.stem) && !body.has(t.stem));
      const all = new Set(foldText(`${paper.title} ${paper.abstract ?? ''}`).split(' ').map(stem));
      const hitExcluded = excluded.filter((e) => e.stems.every((w) => all.has(w))).map((e) => e.term);
      const raw = terms.length === 0 ? 0 : (inTitle.length + 0.6 * inBody.length) / terms.length;
      const score = Math.round((hitExcluded.length > 0 ? raw / 3 : raw) * 1000) / 1000;
      const parts = [
        inTitle.length > 0 ? `title matches ${list(inTitle)}` : null,
        inBody.length > 0 ? `abstract matches ${list(inBody)}` : null,
        missing.length > 0 ? `missing ${list(missing)}` : null,
        hitExcluded.length > 0 ? `mentions excluded ${hitExcluded.map((t) => `"${t}"`).join(', ')}` : null,
      ].filter((p) => p !== null);
      return { ...paper, relevanceScore: score, relevanceReason: `Local lexical score (no LLM): ${parts.join('; ') || 'no terms to match'}.`, tags: tagsByRules(paper) };
    });
    return Promise.resolve({ papers: papers.sort(byRelevance), provenance: LEXICAL_SCORER_PROVENANCE });
  }
}

interface Term {
  readonly stem: string;
  readonly word: string;
}

/** The distinct content words of the strategy's keywords and the intent's concepts, stemmed. */
function queryTerms(input: ScoringInput): Term[] {
  const words = [...input.strategy.queries.flatMap((q) => q.keywords), ...input.intent.concepts].flatMap(contentWords);
  const byStem = new Map<string, string>();
  for (const word of words) if (!byStem.has(stem(word))) byStem.set(stem(word), word);
  return [...byStem].map(([s, word]) => ({ stem: s, word }));
}

function list(terms: readonly Term[]): string {
  return terms.map((t) => `"${t.word}"`).join(', ');
}
