import { Readable } from 'node:stream';
import { type ImportLibraryReferences, type MessageData } from '@openpaw/contracts';
import type { GatewayConfig } from '../../config.js';
import type { CommandPublisher } from '../../runs/ports.js';
import { ImportLibraryHandler, type LibraryFileProgress, withFileLines } from './import-library.handler.js';
import { entryStartsOf, LIBRARY_PART_MAX_BYTES } from './library-parts.js';
import type { LibraryImported, LibraryReplies } from './library-replies.js';

type Sent = MessageData<typeof ImportLibraryReferences>;

/**
 * The research service as the gateway meets it: every published part is answered (its `@` entries
 * added), except the parts `unanswered` names, which stay queued past the wait.
 */
function platform(unanswered: ReadonlySet<number> = new Set()) {
  const sent: Sent[] = [];
  const publisher = { publish: (_definition: unknown, data: Sent) => Promise.resolve(void sent.push(data)) } as unknown as CommandPublisher;
  const replies = {
    request: async (_commandId: string, _options: unknown, publish: () => Promise<void>): Promise<LibraryImported | undefined> => {
      await publish();
      if (unanswered.has(sent.length)) return undefined;
      const last = sent.at(-1)!;
      const entries = last.content.match(/^@/gm)?.length ?? 0;
      return { data: { importId: last.importId, commandId: 'c', userId: last.userId, added: entries - 1, updated: 1, skipped: [{ entry: 0, reason: 'no title' }] } } as unknown as LibraryImported;
    },
  } as unknown as LibraryReplies;
  const handler = new ImportLibraryHandler(replies, publisher, { startWaitMs: 10 } as GatewayConfig);
  return { handler, sent };
}

function chunked(text: string, size: number): AsyncIterable<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return Readable.from(Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size)));
}

const entry = (n: number): string => `@article{k${n},\n  title = {${'Long title words '.repeat(40)}${n}},\n  year = {2021}\n}\n`;

describe('importing a whole library file, streamed in parts', () => {
  it('imports a megabyte file part by part, each under the command limit, with progress and summed totals', async () => {
    const count = 1_500;
    const file = Array.from({ length: count }, (_, i) => entry(i)).join('');
    expect(file.length).toBeGreaterThan(1024 * 1024);
    const { handler, sent } = platform();
    const progress: LibraryFileProgress[] = [];
    const summary = await handler.importFile('user-1', 'bibtex', chunked(file, 64 * 1024), (p) => void progress.push(p));
    expect(sent.length).toBeGreaterThan(2);
    expect(sent.every((part) => part.content.length <= 512 * 1024 && new TextEncoder().encode(part.content).length <= LIBRARY_PART_MAX_BYTES)).toBe(true);
    expect(sent.map((part) => part.content).join('')).toBe(file);
    // Each part is its own idempotent import (its id derives from its content).
    expect(new Set(sent.map((part) => part.importId)).size).toBe(sent.length);
    expect(progress.map((p) => (p.event === 'part' ? p.part : 0))).toEqual(sent.map((_, i) => i + 1));
    expect(summary).toMatchObject({ status: 'imported', parts: sent.length, added: count - sent.length, updated: sent.length, pendingParts: [] });
    expect(summary.skipped[1]).toEqual({ part: 2, entry: 0, reason: 'no title' });
  });

  it("names the file's line of each entry the research service skipped (blank lines, comments and macros between entries)", async () => {
    const file = '\n\n@string{jn = "Journal"}\n\n@Article{ok, title = {A}}\n\n% a comment\n@article{bad, title = {B} year = 2020}\n@misc{ok, title = {C}}\n@article{bad,\n title = {D} journal = jn}\n@article{DBLP:j/x, title = {E} year = 1}\n';
    const sent: Sent[] = [];
    const publisher = { publish: (_definition: unknown, data: Sent) => Promise.resolve(void sent.push(data)) } as unknown as CommandPublisher;
    // As the research service answers: each entry it cannot read named by its head, counted among the part's entries.
    const skipped = [
      { entry: 1, reason: '@article{bad: expected "rbrace", got "identifier"' },
      { entry: 3, reason: '@article{bad}: could not be read' },
      { entry: 4, reason: '@article{DBLP:j/x: expected "rbrace", got "identifier"' },
      { entry: 5, reason: 'no title' },
    ];
    const replies = {
      request: async (_commandId: string, _options: unknown, publish: () => Promise<void>) => {
        await publish();
        return { data: { importId: sent[0]!.importId, commandId: 'c', userId: 'user-1', added: 2, updated: 0, skipped } } as unknown as LibraryImported;
      },
    } as unknown as LibraryReplies;
    const handler = new ImportLibraryHandler(replies, publisher, { startWaitMs: 10 } as GatewayConfig);
    const progress: LibraryFileProgress[] = [];
    const summary = await handler.importFile('user-1', 'bibtex', chunked(file, 16), (p) => void progress.push(p));
    expect(summary.skipped).toEqual([
      { part: 1, entry: 1, line: 8, reason: 'line 8: @article{bad: expected "rbrace", got "identifier"' },
      { part: 1, entry: 3, line: 10, reason: 'line 10: @article{bad}: could not be read' },
      { part: 1, entry: 4, line: 12, reason: 'line 12: @article{DBLP:j/x: expected "rbrace", got "identifier"' },
      { part: 1, entry: 5, reason: 'no title' },
    ]);
    // The part's progress line says the same.
    const part = progress[0]?.event === 'part' && progress[0].result.kind === 'imported' ? progress[0].result.data.skipped : [];
    expect(part.map((p) => p.line)).toEqual([8, 10, 12, undefined]);
    // POST /library/references (the text inline): lines counted in the text sent.
    expect(withFileLines(entryStartsOf(file), skipped).map((p) => p.line)).toEqual([8, 10, 12, undefined]);
  });

  it('says which parts are still queued, and which entries were too large to send', async () => {
    const huge = `@misc{big,\n  abstract = {${'x'.repeat(LIBRARY_PART_MAX_BYTES + 10)}}\n}\n`;
    const file = `${entry(1)}${huge}${entry(2)}`;
    const { handler, sent } = platform(new Set([1]));
    const summary = await handler.importFile('user-1', 'bibtex', chunked(file, 10_000), () => undefined);
    expect(sent).toHaveLength(1);
    expect(summary).toMatchObject({ status: 'pending', parts: 1, pendingParts: [1], skipped: [{ line: 5, reason: expect.stringMatching(/^entry starting on line 5 is \d+ bytes, more than the \d+ one import carries: not imported$/) }] });
  });
});
