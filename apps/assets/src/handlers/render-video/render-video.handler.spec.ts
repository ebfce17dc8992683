import { deterministicUuid, type StepsDocument, VideoRenderFailed } from '@openpaw/contracts';
import { type BlobInfo, BlobNotFoundError, type BlobStore } from '@openpaw/providers';
import type { Reply } from '@openpaw/messaging';
import type { AssetRegistry, AssetVersionRecord, NewVideoVersion, RenderedVideo, VideoRenderer } from '../../ports.js';
import { RenderVideoHandler } from './render-video.handler.js';

const PROBLEM = '11111111-1111-4111-8111-111111111111';
const SOLUTION = '22222222-2222-4222-8222-222222222222';
const RUN = '33333333-3333-4333-8333-333333333333';

const solution: AssetVersionRecord = {
  id: SOLUTION,
  problemId: PROBLEM,
  assetType: 'solution_html',
  version: 1,
  storageKey: 'solutions/r/1.html',
  contentType: 'text/html; charset=utf-8',
  contentSha256: 'c'.repeat(64),
  provenance: {},
  sourceRunId: 'r',
  parentAssetVersionId: null,
  createdAt: new Date(0),
};

const steps: StepsDocument = {
  format: 'openpaw.solution-steps.v1',
  problem: '2x + 3 = 7',
  subject: 'algebra',
  steps: [{ title: 'Isolate x', detail: 'x = 2' }],
  finalAnswer: 'x = 2',
  model: 'local/deterministic',
  promptVersion: 'solve-v1',
};

/** The registry's semantics in memory (the SQL version is covered by the integration test). */
class MemoryRegistry implements Partial<AssetRegistry> {
  readonly versions = new Map<string, AssetVersionRecord>([[SOLUTION, solution]]);
  readonly replies = new Map<string, readonly Reply[]>();
  repliesTo(commandId: string) {
    return Promise.resolve(this.replies.get(commandId));
  }
  saveReplies(commandId: string, replies: readonly Reply[]) {
    if (!this.replies.has(commandId)) this.replies.set(commandId, replies);
    return Promise.resolve(this.replies.get(commandId)!);
  }
  findAssetVersion(id: string) {
    return Promise.resolve(this.versions.get(id));
  }
  findRunAsset(runId: string, type: string) {
    return Promise.resolve([...this.versions.values()].find((v) => v.sourceRunId === runId && v.assetType === type));
  }
  registerVideo(commandId: string, input: NewVideoVersion, build: (v: AssetVersionRecord) => readonly Reply[]) {
    const video: AssetVersionRecord = {
      ...input.solution,
      id: '44444444-4444-4444-8444-444444444444',
      assetType: 'video',
      storageKey: input.storageKey,
      contentType: input.contentType,
      contentSha256: input.contentSha256,
      provenance: input.provenance,
      sourceRunId: input.runId,
      parentAssetVersionId: input.solution.id,
    };
    this.versions.set(video.id, video);
    return this.saveReplies(commandId, build(video));
  }
}

class MemoryBlobs implements Partial<BlobStore> {
  readonly objects = new Map<string, Buffer>();
  put(key: string, body: Uint8Array | string) {
    this.objects.set(key, Buffer.from(body));
    return Promise.resolve({ key } as BlobInfo);
  }
  get(key: string) {
    const body = this.objects.get(key);
    return body === undefined ? Promise.reject(new BlobNotFoundError(key)) : Promise.resolve({ info: { key } as BlobInfo, body });
  }
}

class FakeRenderer implements VideoRenderer {
  calls = 0;
  constructor(private readonly failWith?: Error) {}
  render(): Promise<RenderedVideo> {
    this.calls++;
    if (this.failWith !== undefined) return Promise.reject(this.failWith);
    return Promise.resolve({
      bytes: Buffer.from('....ftypisom'),
      contentType: 'video/mp4',
      durationMs: 8000,
      frameCount: 3,
      width: 1280,
      height: 720,
      fps: 25,
      encoder: 'libx264',
      renderer: 'fake',
    });
  }
}

function setup(renderer = new FakeRenderer()) {
  const registry = new MemoryRegistry();
  const blobs = new MemoryBlobs();
  blobs.objects.set('solutions/r/1.steps.json', Buffer.from(JSON.stringify(steps)));
  const handler = new RenderVideoHandler(registry as unknown as AssetRegistry, blobs as unknown as BlobStore, renderer);
  return { registry, blobs, renderer, handler };
}

const command = (commandId = 'cmd-1', overrides: Partial<{ solutionAssetVersionId: string; problemId: string }> = {}) => ({
  commandId,
  data: { runId: RUN, problemId: PROBLEM, solutionAssetVersionId: SOLUTION, mode: 'async' as const, ...overrides },
});

describe('RenderVideoHandler', () => {
  it('renders, stores videos/<solution>.mp4 and answers VideoRendered + AssetVersionCreated', async () => {
    const { handler, blobs } = setup();
    const replies = await handler.execute(command());
    expect(replies.map((r) => r.message.name)).toEqual(['VideoRendered', 'AssetVersionCreated']);
    expect(replies[0]?.data).toMatchObject({ solutionAssetVersionId: SOLUTION, storageKey: `videos/${SOLUTION}.mp4`, durationMs: 8000 });
    expect(replies[1]?.data).toMatchObject({ assetType: 'video', contentType: 'video/mp4', problemId: PROBLEM });
    expect(blobs.objects.has(`videos/${SOLUTION}.mp4`)).toBe(true);
  });

  it('does not render again for a redelivery or for another command of a run that has its video', async () => {
    const { handler, renderer } = setup();
    const first = await handler.execute(command());
    expect(await handler.execute(command())).toEqual(first);
    const other = await handler.execute(command('cmd-2'));
    expect(other.map((r): unknown => r.data)).toEqual(first.map((r) => ({ ...(r.data as object), commandId: 'cmd-2' })));
    expect(renderer.calls).toBe(1);
  });

  it.each([
    ['an unknown solution', command('c', { solutionAssetVersionId: '55555555-5555-4555-8555-555555555555' }), /no asset version/],
    ['a solution of another problem', command('c', { problemId: '66666666-6666-4666-8666-666666666666' }), /belongs to problem/],
  ])('answers VideoRenderFailed, not retryable, for %s', async (_name, cmd, detail) => {
    const { handler, renderer } = setup();
    const [reply] = await handler.execute(cmd);
    expect(reply).toMatchObject({ message: VideoRenderFailed, id: deterministicUuid('c', VideoRenderFailed.subject), data: { retryable: false } });
    expect((reply?.data as { detail: string }).detail).toMatch(detail);
    expect(renderer.calls).toBe(0);
  });

  it('answers VideoRenderFailed, not retryable, when the steps document is missing or invalid', async () => {
    const missing = setup();
    missing.blobs.objects.clear();
    expect((await missing.handler.execute(command()))[0]).toMatchObject({ message: VideoRenderFailed, data: { retryable: false, detail: expect.stringMatching(/does not exist/) } });
    const invalid = setup();
    invalid.blobs.objects.set('solutions/r/1.steps.json', Buffer.from('{"format":"something else"}'));
    expect((await invalid.handler.execute(command()))[0]).toMatchObject({ message: VideoRenderFailed, data: { retryable: false, detail: expect.stringMatching(/invalid/) } });
  });

  it('answers VideoRenderFailed, retryable, when drawing or encoding fails', async () => {
    const { handler } = setup(new FakeRenderer(new Error('ffmpeg failed (1): broken pipe')));
    expect((await handler.execute(command()))[0]).toMatchObject({
      message: VideoRenderFailed,
      data: { retryable: true, detail: 'rendering failed: ffmpeg failed (1): broken pipe' },
    });
  });
});
