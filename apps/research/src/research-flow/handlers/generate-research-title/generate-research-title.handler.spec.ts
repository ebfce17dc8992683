import { fallbackResearchTitle, ResearchTitleGenerated } from '@openpaw/contracts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { flowFixture } from '../../testing/flow-fixtures.js';
import { cleanTitle } from './generate-research-title.handler.js';

const RUN = '00000000-0000-4000-8000-00000000cccc';
const PROMPT = 'How do heat pumps compare with gas boilers in cold climates? Cover efficiency and cost.';

/** Gemini's generateContent wire format. */
function startGeminiServer(answer: () => { status: number; text: string }): Promise<{ url: string; server: Server; keys: string[] }> {
  const keys: string[] = [];
  const server = createServer((req, res) => {
    keys.push(String(req.headers['x-goog-api-key'] ?? new URL(req.url ?? '/', 'http://x').searchParams.get('key')));
    req.resume();
    req.on('end', () => {
      const a = answer();
      res.writeHead(a.status, { 'content-type': 'application/json' });
      res.end(
        a.status === 200
          ? JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: a.text }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 6 }, modelVersion: 'gemini-2.5-flash' })
          : JSON.stringify({ error: { code: a.status, message: a.text, status: 'UNAVAILABLE' } }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, keys })));
}

describe('GenerateResearchTitle (Gemini with the user’s key, else the deterministic fallback)', () => {
  it('cleans a model’s title', () => {
    expect(cleanTitle('Title: "Heat Pumps vs Gas Boilers in the Cold."\nmore')).toBe('Heat Pumps vs Gas Boilers in the Cold');
    expect(cleanTitle('   \n')).toBeNull();
  });

  it('the fallback is the first sentence, cut at a word at 80 characters', () => {
    expect(fallbackResearchTitle(PROMPT)).toBe('How do heat pumps compare with gas boilers in cold climates');
    expect(fallbackResearchTitle('a'.repeat(10) + ' ' + 'word '.repeat(40))).toMatch(/^Aaaaaaaaaa word .*…$/);
    expect(fallbackResearchTitle('   ')).toBe('Untitled research');
  });

  it('without a gemini key, answers the fallback without calling anyone', async () => {
    const f = flowFixture({});
    const reply = await f.titles.execute({ commandId: 't-1', data: { runId: RUN, userId: 'u', prompt: PROMPT, key: null } });
    expect(reply).toMatchObject({ message: ResearchTitleGenerated, data: { title: fallbackResearchTitle(PROMPT), source: 'fallback', model: null } });
  });

  it('with a gemini key, asks Gemini with it; on failure, the fallback', async () => {
    let status = 200;
    const gemini = await startGeminiServer(() => ({ status, text: status === 200 ? 'Heat Pumps Versus Gas Boilers' : 'down' }));
    try {
      const f = flowFixture({ GEMINI_BASE_URL: gemini.url });
      const key = await f.seal('u', 'gemini', 'AIza-user-key');
      const reply = await f.titles.execute({ commandId: 't-2', data: { runId: RUN, userId: 'u', prompt: PROMPT, key } });
      expect(reply).toMatchObject({ message: ResearchTitleGenerated, data: { title: 'Heat Pumps Versus Gas Boilers', source: 'model', model: expect.stringMatching(/^gemini\//) } });
      expect(gemini.keys[0]).toBe('AIza-user-key');
      status = 503;
      const failed = await f.titles.execute({ commandId: 't-3', data: { runId: RUN, userId: 'u', prompt: PROMPT, key } });
      expect(failed).toMatchObject({ message: ResearchTitleGenerated, data: { source: 'fallback' } });
    } finally {
      gemini.server.closeAllConnections();
      gemini.server.close();
    }
  });
});
