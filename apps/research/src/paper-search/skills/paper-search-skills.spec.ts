import { type Paper, searchStrategy } from '@openpaw/contracts';
import { createLlmFromEnv } from '@openpaw/providers';
import { type ChatRequestBody, startOpenAiWireServer } from '../../testing/openai-wire-server.js';
import { answersOnlyLocally, createPaperSearchSkills } from './paper-search-skills.js';

const settings = { maxTokens: 800, scoreBatchSize: 10, currentYear: () => 2026 };

function paper(id: string, title: string): Paper {
  return { id, title, authors: [], year: 2020, venue: null, abstract: null, doi: null, arxivId: null, pmid: null, url: null, pdfUrl: null, citationCount: null, sources: ['library'], sourceIds: [] };
}

describe('createPaperSearchSkills', () => {
  it('uses the local stand-ins when the client can only answer locally', () => {
    const llm = createLlmFromEnv({});
    expect(answersOnlyLocally(llm)).toBe(true);
    expect(createPaperSearchSkills(llm, settings).local).toBe(true);
  });

  it('runs the LLM skills through the real OpenAI adapter over the wire, with JSON-schema structured output', async () => {
    const ids = ['arxiv:1706.03762', 'doi:10.1038/nature14539'];
    const answers = (body: ChatRequestBody): unknown => {
      const schema = JSON.stringify(body.response_format?.json_schema?.schema ?? {});
      if (schema.includes('intent_type')) return { topic: 'attention models', concepts: ['attention', 'transformer'], intent_type: 'survey', year_from: 2017, year_to: null, language: null, max_results: null };
      if (schema.includes('relevance_score')) return { scores: [{ paper_id: ids[1], relevance_score: 0.2, reason: 'general deep learning review', tags: ['review'] }, { paper_id: ids[0], relevance_score: 0.95, reason: 'introduces the transformer', tags: ['method'] }] };
      if (schema.includes('paper_ids')) return { themes: [{ name: 'Transformers', summary: 'Attention-based models.', paper_ids: [ids[0]] }] };
      return { queries: [{ keywords: ['transformer'], synonyms: [] }], excluded_terms: [], year_from: 2017, year_to: null };
    };
    const server = await startOpenAiWireServer(answers);
    try {
      const llm = createLlmFromEnv({ OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'sk-test-research', OPENPAW_LLM_MAX_ATTEMPTS: '1' });
      const skills = createPaperSearchSkills(llm, settings);
      expect(skills.local).toBe(false);

      const { intent, provenance } = await skills.intentParser.parse('surveys of attention models since 2017');
      expect(intent).toMatchObject({ intentType: 'survey', concepts: ['attention', 'transformer'], constraints: { yearFrom: 2017 } });
      expect(provenance).toMatchObject({ model: 'openai/gpt-4o-mini-2024-07-18', local: false });
      expect(server.bodies[0]!.response_format?.type).toBe('json_schema');

      const { strategy } = await skills.strategyBuilder.build({ intent, previousStrategies: [], feedback: null, availableSources: ['arxiv'] });
      expect(strategy.queries[0]!.booleanQuery).toBe('transformer');

      const papers = [paper(ids[0]!, 'Attention is all you need'), paper(ids[1]!, 'Deep learning')];
      const scored = await skills.scorer.score({ query: 'q', intent, strategy: searchStrategy.parse(strategy), papers });
      expect(scored.papers.map((p) => [p.id, p.relevanceScore])).toEqual([
        [ids[0], 0.95],
        [ids[1], 0.2],
      ]);
      // The scoring schema sent to the model names exactly the batch's paper ids.
      expect(JSON.stringify(server.bodies[2]!.response_format?.json_schema?.schema)).toContain(ids[1]);

      const { themes } = await skills.themer.themes({ query: 'q', strategy, papers: scored.papers });
      expect(themes).toEqual([{ name: 'Transformers', summary: 'Attention-based models.', paperIds: [ids[0]] }]);
    } finally {
      await server.close();
    }
  });
});
