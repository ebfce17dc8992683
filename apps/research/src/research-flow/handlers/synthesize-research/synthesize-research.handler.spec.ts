import { isReplyOf } from '@openpaw/messaging';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MessageData, type SynthesizeResearch, ResearchSynthesisFailed, ResearchSynthesized } from '@openpaw/contracts';
import { LocalFsBlobStore, verifyShareToken } from '@openpaw/providers';
import { type LlmWireServer, startOpenAiWireServer, type WireAnswer } from '@openpaw/testkit';
import { LOCAL_SYNTHESIS_LABEL } from '../../synthesis/local-synthesizer.js';
import { flowFixture, type FlowFixture } from '../../testing/flow-fixtures.js';

const RUN = '00000000-0000-4000-8000-00000000bbbb';
const USER = 'user-9';
const PROMPT = 'Are heat pumps cheaper to run than gas boilers?';
const OPENAI_REPORT = 'Heat pumps are cheaper to run where electricity costs less than three times gas. Installation costs more.';
const ANTHROPIC_REPORT = 'Heat pumps are cheaper to run where electricity costs less than three times gas per kWh. Grants cut the installation cost.';
const SECRET = 'share-secret-for-tests-0123456789';

describe('SynthesizeResearch (synthesis with source attribution, then the shareable report)', () => {
  let openai: LlmWireServer;
  let answer: () => WireAnswer;
  let f: FlowFixture;
  let blobs: LocalFsBlobStore;
  let n = 0;

  beforeAll(async () => {
    answer = () => ({ text: 'x' });
    openai = await startOpenAiWireServer(() => answer());
  });
  afterAll(() => openai.close());
  beforeEach(() => {
    blobs = new LocalFsBlobStore({ rootDir: mkdtempSync(join(tmpdir(), 'research-share-')), shareSecret: SECRET, shareBaseUrl: 'http://127.0.0.1:3000/v1/shared' });
    f = flowFixture({ OPENAI_BASE_URL: openai.baseUrl }, blobs);
    openai.requests.length = 0;
  });

  async function synthesize(over: Partial<MessageData<typeof SynthesizeResearch>> = {}) {
    n += 1;
    const key = over.synthesisLlm === 'openai' ? await f.seal(USER, 'openai', 'sk-synth') : null;
    const data: MessageData<typeof SynthesizeResearch> = {
      runId: RUN,
      userId: USER,
      round: 1,
      title: 'Heat pump running costs <script>alert(1)</script>',
      prompt: PROMPT,
      reports: [
        { provider: 'openai', model: 'openai/gpt-4o-mini', content: OPENAI_REPORT },
        { provider: 'anthropic', model: 'anthropic/claude-haiku-4-5', content: ANTHROPIC_REPORT },
      ],
      externalReports: [{ title: 'Tariffs', content: 'The 2024 tariff puts electricity at 3.4 times the price of gas per kWh.' }],
      skipSynthesis: false,
      synthesisLlm: 'local',
      key,
      capMs: 10_000,
      costCapUsd: 1,
      ...over,
    };
    return f.syntheses.execute({ commandId: `synth-${n}`, data });
  }

  it('given the local synthesizer, then agreeing sentences are grouped and cite every provider that said them; attributions count per source', async () => {
    const reply = await synthesize();
    expect(reply.message).toBe(ResearchSynthesized);
    if (!isReplyOf(reply, ResearchSynthesized)) return;
    const s = reply.data.synthesis!;
    expect(s.content.startsWith(LOCAL_SYNTHESIS_LABEL)).toBe(true);
    expect(s.content).toMatch(/## Where the sources agree\n\n- Heat pumps are cheaper to run where electricity costs less than three times gas\. \[openai\]\[anthropic\]/);
    expect(s.content).toContain('[External 1]');
    expect(s).toMatchObject({ model: 'local/extractive', local: true, costUsd: 0 });
    expect(s.attributions).toEqual([
      { source: 'openai', label: 'openai', sentences: expect.any(Number) },
      { source: 'anthropic', label: 'anthropic', sentences: expect.any(Number) },
      { source: 'external:1', label: 'External 1', sentences: expect.any(Number) },
    ]);
    expect(s.attributions.every((a) => a.sentences >= 1)).toBe(true);
  });

  it('given a model synthesizer, then the prompt carries every source under its label and the rule to cite it', async () => {
    answer = () => ({ text: 'Heat pumps are cheaper where power is under 3x gas [openai][anthropic]. Tariffs are 3.4x today [External 1].' });
    const reply = await synthesize({ synthesisLlm: 'openai' });
    expect(reply).toMatchObject({ message: ResearchSynthesized, data: { synthesis: { model: 'openai/gpt-4o-mini', local: false } } });
    const request = openai.requests[0]!;
    expect(request.system).toMatch(/cite the sources it rests on by their labels/);
    expect(request.user).toContain('### [openai] (openai/gpt-4o-mini)');
    expect(request.user).toContain('### [External 1] Tariffs');
    if (isReplyOf(reply, ResearchSynthesized)) expect(reply.data.synthesis?.attributions.map((a) => a.sentences)).toEqual([1, 1, 1]);
  });

  it('given a cut leg and a synthesis model that ran out of output tokens, then the prompt, the reply and the shared page all say what is not whole', async () => {
    answer = () => ({ text: 'Heat pumps are cheaper where [openai]', stoppedAtLimit: true });
    const reply = await synthesize({
      synthesisLlm: 'openai',
      reports: [
        { provider: 'openai', model: 'openai/gpt-4o-mini', content: OPENAI_REPORT, truncated: true },
        { provider: 'anthropic', model: 'anthropic/claude-haiku-4-5', content: ANTHROPIC_REPORT, truncated: false },
      ],
    });
    expect(openai.requests[0]!.user).toContain('### [openai] (openai/gpt-4o-mini) (this report was cut short: it is not whole)');
    expect(openai.requests[0]!.user).toContain('### [anthropic] (anthropic/claude-haiku-4-5)\n');
    if (!isReplyOf(reply, ResearchSynthesized) || reply.data.share === null) throw new Error('no synthesis shared');
    expect(reply.data.synthesis?.truncated).toBe(true);
    const page = (await blobs.get(reply.data.share.blobKey)).body.toString('utf8');
    // Once under the synthesis, once under the openai report; the anthropic report is whole.
    expect(page.match(/This text was cut short/g)).toHaveLength(2);
  });

  it('given a whole synthesis, then it is not marked truncated', async () => {
    answer = () => ({ text: 'Heat pumps are cheaper where power is under 3x gas [openai][anthropic].' });
    expect(await synthesize({ synthesisLlm: 'openai' })).toMatchObject({ message: ResearchSynthesized, data: { synthesis: { truncated: false } } });
  });

  it('given the synthesis model fails, then ResearchSynthesisFailed with the reason', async () => {
    answer = () => ({ status: 503, message: 'overloaded' });
    expect(await synthesize({ synthesisLlm: 'openai' })).toMatchObject({ message: ResearchSynthesisFailed, data: { reason: 'server_error', round: 1 } });
  });

  it('given skipSynthesis, then no model is called and the single report is still shared', async () => {
    const reply = await synthesize({ skipSynthesis: true, synthesisLlm: 'openai', reports: [{ provider: 'openai', model: 'openai/gpt-4o-mini', content: OPENAI_REPORT }], externalReports: [] });
    expect(reply).toMatchObject({ message: ResearchSynthesized, data: { synthesis: null, share: expect.any(Object), shareError: null } });
    expect(openai.requests).toHaveLength(0);
  });

  it('shares a self-contained, sanitised HTML page behind a signed, expiring URL', async () => {
    const reply = await synthesize({
      reports: [{ provider: 'openai', model: 'openai/gpt-4o-mini', content: `${OPENAI_REPORT}\n\n<img src=x onerror=alert(1)> [link](javascript:alert(1))` }],
    });
    if (!isReplyOf(reply, ResearchSynthesized) || reply.data.share === null) throw new Error('no share');
    const { url, blobKey, expiresAt, contentSha256 } = reply.data.share;
    const token = url.split('/').at(-1)!;
    expect(verifyShareToken(token, SECRET)).toMatchObject({ valid: true, key: blobKey });
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(6 * 24 * 3600 * 1000);
    const page = (await blobs.get(blobKey)).body.toString('utf8');
    expect(contentSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(page).toMatch(/^<!doctype html>/);
    // No element that runs, loads or links anything; no attribute but class, lang, charset, name, content.
    expect(page).not.toMatch(/<(?:script|img|a|link|iframe|object|embed|form|svg|base)\b/i);
    expect([...page.matchAll(/<[a-z][^>]*?\s([a-z-]+)=/gi)].map((m) => m[1]).filter((a) => !['class', 'lang', 'charset', 'name', 'content'].includes(a!))).toEqual([]);
    expect(page).not.toMatch(/@import|url\(/i);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).toContain('<span class="label">[openai]</span>');
  });

  it('is idempotent per command id', async () => {
    const first = await synthesize();
    expect(await f.syntheses.execute({ commandId: `synth-${n}`, data: {} as MessageData<typeof SynthesizeResearch> })).toEqual(first);
  });
});
