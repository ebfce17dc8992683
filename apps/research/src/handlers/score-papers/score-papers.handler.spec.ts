import { InMemoryKeptReplyStore } from '@openpaw/testkit';
import { type Paper, type ParsedIntent, searchStrategy, PaperSearchStepFailed, PapersScored } from '@openpaw/contracts';
import { CostCapExceededError, createLlmFromEnv, LlmCallFailedError } from '@openpaw/providers';
import { RUN_ID, skillsFor, testSettings } from '../../testing/handler-fixtures.js';
import { scriptedLlm } from '../../testing/scripted-llm.js';
import { PaperSets } from '../../paper-search/papers/paper-sets.js';
import { ScorePapersHandler } from './score-papers.handler.js';

const intent: ParsedIntent = { topic: 'attention', concepts: ['attention'], intentType: 'method', constraints: { yearFrom: null, yearTo: null, language: null, maxResults: 100 } };
const strategy = searchStrategy.parse({ queries: [{ keywords: ['attention'], booleanQuery: 'attention' }], sources: ['library'], filters: {} });
const papers: Paper[] = [
  { id: 'arxiv:1', title: 'Attention is all you need', authors: [], year: 2017, venue: null, abstract: null, doi: null, arxivId: '1', pmid: null, url: null, pdfUrl: null, citationCount: null, sources: ['library'], sourceIds: [] },
];
const data = { runId: RUN_ID, iteration: 1, query: 'attention', intent, strategy, papers };

describe('ScorePapersHandler', () => {
  it('scores with the local lexical scorer when only the local model is configured, and says so', async () => {
    const reply = await new ScorePapersHandler(skillsFor(createLlmFromEnv({})), new InMemoryKeptReplyStore(), testSettings, new PaperSets(null)).execute({ commandId: 'sc1', data });
    expect(reply).toMatchObject({ message: PapersScored, data: { papers: [{ relevanceScore: 1 }], provenance: { local: true, model: 'local/lexical-overlap' } } });
  });

  it('answers cost_cap_exceeded (not retryable) and llm_unavailable (retryable) as step failures', async () => {
    const capped = scriptedLlm();
    capped.structured = () => Promise.reject(new CostCapExceededError(RUN_ID, 0.01, 0.01, 0.02, 'openai/gpt-4o-mini'));
    expect(await new ScorePapersHandler(skillsFor(capped), new InMemoryKeptReplyStore(), testSettings, new PaperSets(null)).execute({ commandId: 'sc2', data })).toMatchObject({
      message: PaperSearchStepFailed,
      data: { step: 'score', errorCode: 'cost_cap_exceeded', retryable: false },
    });
    const down = scriptedLlm();
    down.structured = () => Promise.reject(new LlmCallFailedError([{ model: 'openai/gpt-4o-mini', outcome: 'server_error', waitedMs: 0 }], undefined));
    expect(await new ScorePapersHandler(skillsFor(down), new InMemoryKeptReplyStore(), testSettings, new PaperSets(null)).execute({ commandId: 'sc3', data })).toMatchObject({
      message: PaperSearchStepFailed,
      data: { errorCode: 'llm_unavailable', retryable: true },
    });
  });
});
