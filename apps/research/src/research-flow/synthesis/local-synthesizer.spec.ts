import type { ExternalReport, LegReport } from '@openpaw/contracts';
import { localReport } from '../researchers/local-extractive-researcher.js';
import { factKey, figuresOf, isNegated } from './claim-facts.js';
import { LocalSynthesizer } from './local-synthesizer.js';

const PROMPT = 'How efficient are heat pumps in cold climates?';

async function synthesize(reports: readonly Pick<LegReport, 'provider' | 'content'>[], externalReports: readonly ExternalReport[] = []): Promise<string> {
  const result = await new LocalSynthesizer().synthesize({
    runId: 'r',
    userId: 'u',
    prompt: PROMPT,
    reports: reports.map((r): LegReport => ({ ...r, model: `${r.provider}/model` })),
    externalReports,
    synthesisLlm: 'local',
    apiKey: null,
    costCapUsd: 1,
    signal: new AbortController().signal,
  });
  return result.content;
}

/** The section of a synthesis under `heading`, up to the next heading. */
function section(content: string, heading: string): string {
  const start = content.indexOf(`## ${heading}`);
  if (start < 0) return '';
  const rest = content.slice(start + heading.length + 3);
  const end = rest.indexOf('\n## ');
  return end < 0 ? rest : rest.slice(0, end);
}

describe('the figures and polarity of a claim', () => {
  it('reads digits (single ones too), thousands, decimals, number words, units and bounds', () => {
    expect(figuresOf('At most 95 percent of homes, 7 kWh and 1,200 units at about 2.5 times the cost, three of them.').map((f) => [f.bound, f.value, f.unit])).toEqual([
      ['<=', 95, '%'],
      ['', 7, 'kwh'],
      ['', 1200, 'units'],
      ['~', 2.5, 'times'],
      ['', 3, 'of'],
    ]);
    expect(factKey('Efficiency is 95% in winter.')).toBe(factKey('Efficiency is 95 percent in winter.'));
    expect(factKey('It saves 5 kWh per day.')).not.toBe(factKey('It saves 5 MWh per day.'));
    expect(factKey('It needs 3 units.')).not.toBe(factKey('It needs 8 units.'));
  });

  it('tells a denial from a statement', () => {
    expect(isNegated('Heat pumps do not work below -15 C.')).toBe(true);
    expect(isNegated("Heat pumps don't work below -15 C.")).toBe(true);
    expect(isNegated('Heat pumps work below -15 C.')).toBe(false);
  });
});

describe('the local synthesis is honest about disagreement', () => {
  it('never merges sentences whose figures differ: both go under "Where the sources differ", each figure with its source', async () => {
    const content = await synthesize([
      { provider: 'openai', content: 'Heat pumps in cold climates reach at most 95 percent of their rated efficiency.' },
      { provider: 'anthropic', content: 'Heat pumps in cold climates reach 85 percent of their rated efficiency.' },
    ]);
    expect(section(content, 'Where the sources agree')).toBe('');
    const differ = section(content, 'Where the sources differ');
    expect(differ).toContain('Figures differ: at most 95 percent [openai]; 85 percent [anthropic].');
    expect(differ).toContain('  - Heat pumps in cold climates reach at most 95 percent of their rated efficiency. [openai]');
    expect(differ).toContain('  - Heat pumps in cold climates reach 85 percent of their rated efficiency. [anthropic]');
  });

  it('keeps single digits apart and different units apart, and merges the same figure written two ways', async () => {
    const digits = await synthesize([
      { provider: 'openai', content: 'A cold-climate heat pump needs 3 kW of backup heating on the coldest days.' },
      { provider: 'anthropic', content: 'A cold-climate heat pump needs 4 kW of backup heating on the coldest days.' },
      { provider: 'gemini', content: 'A cold-climate heat pump needs 3 kWh of backup heating on the coldest days.' },
    ]);
    expect(section(digits, 'Where the sources differ')).toMatch(/3 kW \[openai\]; 4 kW \[anthropic\]; 3 kWh \[gemini\]/);
    const same = await synthesize([
      { provider: 'openai', content: 'Heat pumps in cold climates keep 60% of their capacity at minus twenty degrees.' },
      { provider: 'anthropic', content: 'Heat pumps in cold climates keep 60 percent of their capacity at minus twenty degrees.' },
    ]);
    expect(section(same, 'Where the sources agree')).toContain('[openai][anthropic]');
    expect(section(same, 'Where the sources differ')).toBe('');
  });

  it('never merges a statement with its negation', async () => {
    const content = await synthesize([
      { provider: 'openai', content: 'Heat pumps in cold climates need a backup heater in most homes.' },
      { provider: 'anthropic', content: 'Heat pumps in cold climates do not need a backup heater in most homes.' },
    ]);
    expect(section(content, 'Where the sources agree')).toBe('');
    expect(section(content, 'Where the sources differ')).toContain('One source denies what another states: [anthropic] negates.');
  });

  it('attributes a leg quoting an external report to that report alone, not as a second source agreeing with it', async () => {
    const external = [{ title: 'Field trial', content: 'The field trial measured a seasonal efficiency of 2.8 in cold climates for heat pumps.' }];
    const quoting = localReport(PROMPT, external, 8);
    const content = await synthesize([{ provider: 'local', content: quoting }], external);
    expect(section(content, 'Where the sources agree')).toBe('');
    expect(content).toContain('- The field trial measured a seasonal efficiency of 2.8 in cold climates for heat pumps. [External 1]\n');
    // The leg is listed as a source it was given, but no finding is credited to it.
    expect(content.slice(0, content.indexOf('## Sources'))).not.toContain('[local]');
  });
});
