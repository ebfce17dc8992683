import { scriptedLlm } from '../../testing/scripted-llm.js';
import { readStatedConstraints } from './constraint-phrases.js';
import { LlmIntentParser } from './llm-intent-parser.js';
import { conceptPhrases, LocalIntentParser } from './local-intent-parser.js';

const year = () => 2026;

describe('the local intent parser', () => {
  it('reads concepts, intent type and constraints from the request, and says it is local', async () => {
    const { intent, provenance } = await new LocalIntentParser(year).parse('Find a survey of graph neural networks for molecular property prediction since 2019, top 30 papers');
    expect(intent).toEqual({
      topic: 'survey of graph neural networks for molecular property prediction',
      concepts: ['graph neural networks', 'molecular property prediction'],
      intentType: 'survey',
      constraints: { yearFrom: 2019, yearTo: null, language: null, maxResults: 30 },
    });
    expect(provenance).toMatchObject({ local: true, model: 'local/rules', method: expect.stringContaining('LOCAL') });
  });

  it('tells dataset, baseline and method requests apart', async () => {
    const parser = new LocalIntentParser(year);
    expect((await parser.parse('benchmark datasets for protein folding')).intent).toMatchObject({ intentType: 'dataset', concepts: ['protein folding'] });
    expect((await parser.parse('compare transformer and LSTM language models')).intent.intentType).toBe('baseline');
    expect((await parser.parse('diffusion models for image generation')).intent).toMatchObject({ intentType: 'method', concepts: ['diffusion models', 'image generation'] });
  });

  it('reads time ranges relative to the current year, exclusive bounds and languages', () => {
    expect(readStatedConstraints('papers from the last 5 years', 2026)).toMatchObject({ yearFrom: 2021, yearTo: null });
    expect(readStatedConstraints('after 2019 and before 2024', 2026)).toMatchObject({ yearFrom: 2020, yearTo: 2023 });
    expect(readStatedConstraints('between 2015 and 2018 in French', 2026)).toMatchObject({ yearFrom: 2015, yearTo: 2018, language: 'fr' });
    expect(readStatedConstraints('published in 2017', 2026)).toMatchObject({ yearFrom: 2017, yearTo: 2017, rest: '' });
  });

  it('splits concept phrases at stopwords and keeps them short', () => {
    expect(conceptPhrases('Self-supervised learning of visual representations with contrastive objectives')).toEqual(['self supervised learning', 'visual representations', 'contrastive objectives']);
    expect(conceptPhrases('the of and')).toEqual([]);
  });
});

describe('the LLM intent parser', () => {
  it('asks the model for a structured intent and maps it to the contract', async () => {
    const llm = scriptedLlm();
    llm.script.push(() => ({ topic: 'GNNs for molecules', concepts: ['graph neural network', 'molecular property'], intent_type: 'method', year_from: 2021, year_to: null, language: null, max_results: null }));
    const { intent, provenance } = await new LlmIntentParser({ llm, maxTokens: 500 }, year).parse('recent GNN papers on molecules');
    expect(intent).toEqual({ topic: 'GNNs for molecules', concepts: ['graph neural network', 'molecular property'], intentType: 'method', constraints: { yearFrom: 2021, yearTo: null, language: null, maxResults: 100 } });
    expect(provenance).toEqual({ model: 'openai/gpt-4o-mini', local: false, method: expect.stringContaining('paper-intent/1'), costUsd: 0.001 });
    expect(llm.calls[0]![0]!.content).toContain('The current year is 2026');
  });

  it('refuses an answer whose years are out of order', async () => {
    const llm = scriptedLlm();
    llm.script.push(() => ({ topic: 't', concepts: ['c'], intent_type: 'method', year_from: 2024, year_to: 2020, language: null, max_results: null }));
    await expect(new LlmIntentParser({ llm, maxTokens: 500 }, year).parse('x')).rejects.toMatchObject({ name: 'ZodError' });
  });
});
