import type { Paper, ParsedIntent, SearchStrategy } from '@openpaw/contracts';
import { scriptedLlm } from '../../testing/scripted-llm.js';
import { paperIdOf } from '../papers/paper-id.js';
import { LexicalRelevanceScorer } from './lexical-relevance-scorer.js';
import { LlmRelevanceScorer } from './llm-relevance-scorer.js';

function paper(title: string, abstract: string | null = null): Paper {
  const p: Paper = { id: '', title, authors: [], year: 2020, venue: null, abstract, doi: null, arxivId: null, pmid: null, url: null, pdfUrl: null, citationCount: null, sources: ['library'], sourceIds: [] };
  return { ...p, id: paperIdOf(p) };
}

const intent: ParsedIntent = { topic: 'graph neural networks for molecules', concepts: ['graph neural networks', 'molecules'], intentType: 'method', constraints: { yearFrom: null, yearTo: null, language: null, maxResults: 100 } };
const strategy: SearchStrategy = {
  queries: [{ keywords: ['graph neural networks', 'molecules'], synonyms: [], booleanQuery: '"graph neural networks" AND molecules' }],
  sources: ['library'],
  filters: { yearFrom: null, yearTo: null, language: null, maxResults: 100 },
  excludedTerms: ['survey'],
};

describe('the local lexical scorer', () => {
  it('scores by stemmed term overlap (title over abstract), explains itself and says it is local', async () => {
    const papers = [
      paper('Deep residual learning for image recognition'),
      paper('Neural message passing for quantum chemistry', 'We apply graph networks to molecules.'),
      paper('Graph neural networks for molecule property prediction'),
      paper('A survey of graph neural networks for molecules'),
    ];
    const { papers: scored, provenance } = await new LexicalRelevanceScorer().score({ query: 'gnn molecules', intent, strategy, papers });
    expect(scored.map((p) => [p.title, p.relevanceScore])).toEqual([
      ['Graph neural networks for molecule property prediction', 1],
      ['Neural message passing for quantum chemistry', 0.7],
      ['A survey of graph neural networks for molecules', 0.333],
      ['Deep residual learning for image recognition', 0],
    ]);
    expect(scored[1]!.relevanceReason).toBe('Local lexical score (no LLM): title matches "neural"; abstract matches "graph", "networks", "molecules".');
    expect(scored[2]!.relevanceReason).toContain('mentions excluded "survey"');
    expect(scored[2]!.tags).toContain('review');
    expect(provenance).toMatchObject({ local: true, model: 'local/lexical-overlap', costUsd: 0 });
  });
});

describe('the LLM scorer', () => {
  it('scores in batches; every paper must come back exactly once', async () => {
    const papers = [paper('A'), paper('B'), paper('C')];
    const llm = scriptedLlm();
    llm.script.push(() => ({ scores: [{ paper_id: papers[1]!.id, relevance_score: 0.9, reason: 'on topic', tags: ['method'] }, { paper_id: papers[0]!.id, relevance_score: 0.2, reason: 'off', tags: [] }] }));
    llm.script.push(() => ({ scores: [{ paper_id: papers[2]!.id, relevance_score: 0.5, reason: 'partly', tags: ['empirical', 'empirical'] }] }));
    const { papers: scored, provenance } = await new LlmRelevanceScorer({ llm, maxTokens: 1000 }, 2).score({ query: 'q', intent, strategy, papers });
    expect(scored.map((p) => [p.title, p.relevanceScore, p.relevanceReason, p.tags])).toEqual([
      ['B', 0.9, 'on topic', ['method']],
      ['C', 0.5, 'partly', ['empirical']],
      ['A', 0.2, 'off', []],
    ]);
    expect(provenance).toMatchObject({ local: false, costUsd: 0.002 });

    llm.script.push(() => ({ scores: [{ paper_id: papers[0]!.id, relevance_score: 0.9, reason: 'x', tags: [] }, { paper_id: papers[0]!.id, relevance_score: 0.9, reason: 'x', tags: [] }] }));
    await expect(new LlmRelevanceScorer({ llm, maxTokens: 1000 }, 2).score({ query: 'q', intent, strategy, papers: papers.slice(0, 2) })).rejects.toMatchObject({ name: 'StructuredOutputError' });
  });
});
