import type { ExternalReport, LegReport } from '@openpaw/contracts';
import { localReport } from '../researchers/local-extractive-researcher.js';
import { factsOf, figuresOf, isNegated, sameFacts } from './claim-facts.js';
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

const same = (a: string, b: string): boolean => sameFacts(factsOf(a), factsOf(b));

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
      ['', 7, 'kWh'],
      ['', 1200, 'unit'],
      ['~', 2.5, 'x'],
      ['', 3, ''],
    ]);
    expect(same('Efficiency is 95% in winter.', 'Efficiency is 95 percent in winter.')).toBe(true);
    expect(same('It saves 5 kWh per day.', 'It saves 5 MWh per day.')).toBe(false);
    expect(same('It needs 3 units.', 'It needs 8 units.')).toBe(false);
  });

  it('compares figures as a multiset: order does not matter, a missing or extra figure does, and a unit left unwritten on one side is no conflict', () => {
    expect(same('It costs 4 kW at 7 hours.', 'At 7 hours it costs 4 kW.')).toBe(true);
    expect(same('It runs 7 hours at 4 kW.', 'It runs 7 hours at 4 kW and 2 kW.')).toBe(false);
    expect(same('It runs 3 kW, 3 kW.', 'It runs 3 kW, 3 kWh.')).toBe(false);
    expect(same('In 2020, heat pumps sold well.', 'In 2020 heat pumps sold well.')).toBe(true);
    expect(figuresOf('It uses 5 per day.').map((f) => f.unit)).toEqual(['']);
  });

  it('takes units from a closed class, so the word after a figure is not its unit; currencies before it are', () => {
    expect(figuresOf('A COP above 2 even at -15 °C in the 2023 field study, 3 kW, 40 hours, $500 and €500.').map((f) => [f.value, f.unit])).toEqual([
      [2, ''],
      [-15, '°C'],
      [2023, ''],
      [3, 'kW'],
      [40, 'hour'],
      [500, 'USD'],
      [500, 'EUR'],
    ]);
    expect(same('It costs $500 to install.', 'It costs €500 to install.')).toBe(false);
    expect(same('It runs 40 hours a week.', 'It runs 40 days a week.')).toBe(false);
  });

  it('reads signs: -15, −15 and minus 15 are one figure, and not 15; a range is two positive figures', () => {
    expect(figuresOf('It works at -15 C, at −15 C and at minus 15 C.').map((f) => f.value)).toEqual([-15, -15, -15]);
    expect(same('It works down to -15 C.', 'It works down to 15 C.')).toBe(false);
    expect(figuresOf('Between 10-15 kW.').map((f) => f.value)).toEqual([10, 15]);
  });

  it('tells a denial from a statement', () => {
    expect(isNegated('Heat pumps do not work below -15 C.')).toBe(true);
    expect(isNegated("Heat pumps don't work below -15 C.")).toBe(true);
    expect(isNegated('Heat pumps work below -15 C.')).toBe(false);
    // A bound is not a denial: "no more than 95" is "at most 95".
    expect(isNegated('Efficiency is no more than 95 percent.')).toBe(false);
    expect(same('Efficiency is no more than 95 percent.', 'Efficiency is at most 95 percent.')).toBe(true);
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

  it('credits a model leg restating an external report it was given to that report alone', async () => {
    const external = [{ title: 'Field trial', content: 'The field trial measured a seasonal efficiency of 2.8 in cold climates for heat pumps.' }];
    const content = await synthesize(
      [
        { provider: 'openai', content: 'According to the trial, the field trial measured a seasonal efficiency of 2.8 in cold climates for heat pumps.' },
        { provider: 'anthropic', content: 'Heat pumps in cold climates need defrost cycles that cost energy.' },
      ],
      external,
    );
    expect(section(content, 'Where the sources agree')).toBe('');
    expect(section(content, 'Findings from one source')).toMatch(/2\.8 in cold climates for heat pumps\. \[External 1\]\n/);
    expect(content.slice(0, content.indexOf('## Sources'))).not.toContain('[openai]');
  });

  it('a leg restating an external report with a different figure is a disagreement with that report, each figure with its source', async () => {
    const external = [{ content: 'The field trial measured a seasonal efficiency of 2.8 in cold climates for heat pumps.' }];
    const content = await synthesize([{ provider: 'gemini', content: 'The field trial measured a seasonal efficiency of 3.8 in cold climates for heat pumps.' }], external);
    expect(section(content, 'Where the sources differ')).toContain('Figures differ: 3.8 [gemini]; 2.8 [External 1].');
  });

  it('credits a sentence citing an external report mid-sentence ([External 1]) to that report, its citation lifted out of the figures', async () => {
    const external = [{ title: 'Field study 2023', content: 'Cold-climate heat pumps kept a coefficient of performance above 2 at -15 °C in the 2023 field study.' }];
    const content = await synthesize(
      [
        { provider: 'openai', content: 'Cold-climate heat pumps keep a coefficient of performance above 2 even at -15 °C [External 1]. Running costs depend on the electricity to gas price ratio.' },
        { provider: 'anthropic', content: 'Cold-climate heat pumps keep a coefficient of performance above 3 even at -15 °C.' },
      ],
      external,
    );
    const differ = section(content, 'Where the sources differ');
    // The openai sentence is External 1's; the "1" of its citation is no figure; the year is one.
    expect(differ).toContain('[External 1]');
    expect(differ).toContain('at least 3, -15 °C [anthropic]');
    expect(differ).not.toMatch(/\[openai\]|, 1 /);
    expect(section(content, 'Findings from one source')).toContain('Running costs depend on the electricity to gas price ratio. [openai]');
  });

  it('merges agreeing sources with a bound written two ways, and keeps a signed figure apart from its opposite', async () => {
    const bounds = await synthesize([
      { provider: 'openai', content: 'Cold-climate heat pumps lose no more than 30 percent of capacity in deep frost.' },
      { provider: 'anthropic', content: 'Cold-climate heat pumps lose at most 30% of capacity in deep frost.' },
    ]);
    expect(section(bounds, 'Where the sources agree')).toContain('[openai][anthropic]');
    const signs = await synthesize([
      { provider: 'openai', content: 'Cold-climate heat pumps keep working down to -25 C outdoor temperature.' },
      { provider: 'anthropic', content: 'Cold-climate heat pumps keep working down to 25 C outdoor temperature.' },
    ]);
    expect(section(signs, 'Where the sources differ')).toContain('Figures differ: -25 C [openai]; 25 C [anthropic].');
  });
});
