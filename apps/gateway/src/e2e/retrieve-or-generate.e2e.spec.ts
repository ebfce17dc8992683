import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase, privateNatsServer, type NatsServerHandle, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import pg from 'pg';
import { GatewayClient } from './e2e-client.js';
import { cliEnvironment, runCli, startCli } from './testing/openpaw-cli.js';
import { renderProblemPng, rephotograph } from '@openpaw/testkit';
import sharp from 'sharp';

/**
 * A small, coarse JPEG of `problem` (150 px wide at quality 10) that the reader reads whole but with
 * signs it is far from sure of (digits and "=" at 0.8–0.9), so the reading is not trusted. Larger or
 * finer copies are read sure as the reader improves (190 px at quality 15 was, once the reader
 * settled a doubted letter of "Solve"): this one must stay doubtful for the read → confirm → solve tests.
 */
async function unsurePhotoOf(problem: string): Promise<Buffer> {
  return sharp(await renderProblemPng(problem)).resize({ width: 150 }).jpeg({ quality: 10 }).toBuffer();
}

const root = join(import.meta.dirname, '../../../..');

/** A slow local web page holding a problem: keeps a run in INGESTING long enough to cancel it. */
async function startProblemPageServer(): Promise<{ url: (path: string) => string; server: Server }> {
  const server = createServer((request, response) => {
    const delayMs = request.url?.startsWith('/slow') === true ? 3_000 : 0;
    setTimeout(() => {
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(request.url?.includes('fraction') === true ? 'Solve for y: 4y - 2 = 10' : 'Solve for n: 5n + 5 = 40');
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: (path) => `http://127.0.0.1:${port}${path}`, server };
}

describe('RetrieveOrGenerate end to end through the gateway', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let pages: Awaited<ReturnType<typeof startProblemPageServer>>;
  let alice: GatewayClient;
  let databaseUrl: string;

  beforeAll(async () => {
    nats = await privateNatsServer();
    pages = await startProblemPageServer();
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: (databaseUrl = await freshDatabase('e2e_rog')),
      services: ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets', 'gateway'],
      // The test-only entrypoint: the problem pages are served from 127.0.0.1, which safe fetching refuses otherwise.
      entries: { ingestion: 'testing/loopback-main.js' },
    });
    alice = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'alice');
  });

  afterAll(async () => {
    await platform.stop();
    pages.server.close();
    await nats.dispose();
  });

  it('solves a new text problem, then serves the same problem as a hit without a new solve', async () => {
    const first = await alice.submitText('2x + 3 = 7', 60);
    expect(first.status).toBe(200);
    expect(first.body.result).toMatchObject({ status: 'succeeded', outcome: 'new', output: { is_approximate: false } });
    const assetVersionId = first.body.result?.output.asset_version_id;
    const html = await (await alice.request(`/runs/${first.body.run_id}/solution`)).text();
    expect(html).toContain('<mn>2</mn>');
    expect(html).not.toMatch(/<script|https?:\/\//i);

    // The identical submission is the same run: the cached result at once.
    const again = await alice.submitText('2x + 3 = 7');
    expect(again.status).toBe(200);
    expect(again.body.run_id).toBe(first.body.run_id);

    // The same problem from another user (so another idempotency key, a new run), typed a little
    // differently: retrieval answers it, a hit on the same asset, no new solve.
    const bob = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'bob');
    const copy = await bob.submitText('2x+3 = 7', 60);
    expect(copy.body.run_id).not.toBe(first.body.run_id);
    expect(copy.body.result).toMatchObject({ status: 'succeeded', outcome: 'hit', output: { asset_version_id: assetVersionId } });
    expect(copy.body.result?.cost_usd).toBe(0);
  });

  it('finds a paraphrase through vector/hybrid search', async () => {
    const original = await alice.submitText('Solve for x: 3x - 4 = 11', 60);
    expect(original.body.result?.outcome).toBe('new');
    const paraphrase = await alice.submitText('Solve 3x - 4 = 11 for x', 60);
    expect(paraphrase.body.result).toMatchObject({ outcome: 'hit', output: { asset_version_id: original.body.result?.output.asset_version_id } });
  });

  it('solves an image problem; re-photographed, it is the same problem: answered from that run for its user, a hit for another', async () => {
    const png = await renderProblemPng('5x - 10 = 15');
    const first = await alice.submitImage(png, 'problem.png', 60);
    expect(first.body.result).toMatchObject({ status: 'succeeded', outcome: 'new' });
    const photo = await rephotograph(png);
    // Other bytes, another run; the same signature, user and intent after INGESTING: the earlier run's result (ADR 0016).
    // Its text is too short to stand for the image (a figure captioned "Find x." is no page of text), so
    // the key is the image's pHash (ADR 0016, amended), which the photograph keeps.
    const copy = await alice.submitImage(photo, 'photo.jpg', 60);
    expect(copy.body.run_id).not.toBe(first.body.run_id);
    expect(copy.body.result).toMatchObject({ outcome: 'new', cached_from: first.body.run_id, output: { asset_version_id: first.body.result?.output.asset_version_id } });
    // Another user's photo of it is retrieval's: a hit on the same asset.
    const bob = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'bob');
    const bobs = await bob.submitImage(photo, 'photo.jpg', 60);
    expect(bobs.body.result).toMatchObject({ outcome: 'hit', output: { asset_version_id: first.body.result?.output.asset_version_id } });
  });

  it('solves a problem given by URL', async () => {
    const submitted = await alice.submitUrl(pages.url('/problem.txt'), 60);
    expect(submitted.body.result).toMatchObject({ status: 'succeeded', outcome: 'new' });
  });

  it('fails a rejected upload with its reason, and a re-submission is attempt 2 of the same run', async () => {
    // A PNG signature followed by garbage: an image by its magic bytes, unreadable as one.
    const broken = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);
    const first = await alice.submitImage(broken, 'broken.png', 60);
    expect(first.body.result).toMatchObject({ status: 'failed', error_code: 'unreadable' });
    const retry = await alice.submitImage(broken, 'broken.png', 60);
    expect(retry.body.run_id).toBe(first.body.run_id);
    expect(retry.body.attempt_no).toBe(2);
    expect(retry.body.result).toMatchObject({ status: 'failed', attempt_no: 2 });
  });

  it('read → confirm → solve (issue 25): an uncertain reading waits for its owner, who corrects it; without opt-in it fails unreadable', async () => {
    const blurred = await unsurePhotoOf('Solve 5y + 2 = 17');

    const refused = await alice.submitImage(blurred, 'blurred.jpg', 60);
    expect(refused.body.result).toMatchObject({ status: 'failed', error_code: 'unreadable', reading: { doubts: expect.arrayContaining([expect.any(String)]) } });
    const notWaiting = await alice.request(`/runs/${refused.body.run_id}/reading`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"confirm":true}' });
    expect(notWaiting.status).toBe(409);
    expect(await notWaiting.json()).toMatchObject({ error: 'reading_not_awaited', state: 'FAILED' });

    const bob = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'bob');
    const submitted = await bob.submitImage(blurred, 'blurred.jpg', 0, { confirm_reading: 'true' });
    const runId = submitted.body.run_id;
    expect(await bob.untilState(runId, ['AWAITING_READING_CONFIRMATION'], 60_000)).toBe('AWAITING_READING_CONFIRMATION');
    expect((await bob.run(runId)).view).toMatchObject({ status: 'running', reading: { text: expect.any(String), doubts: expect.arrayContaining([expect.any(String)]) } });

    const answer = (body: unknown) => bob.request(`/runs/${runId}/reading`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    for (const [bad, named] of [[{ text: '   ' }, 'text'], [{ text: 'x'.repeat(20_001) }, 'text'], [{ text: '5y\u0000 = 2' }, 'text'], [{}, 'confirm']] as const) {
      const response = await answer(bad);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'validation_failed', issues: [expect.objectContaining({ path: named })] });
    }
    const corrected = await answer({ text: 'Solve 5y + 2 = 17' });
    expect(corrected.status).toBe(202);
    const done = await bob.untilTerminal(runId, 60_000);
    expect(done.view).toMatchObject({ status: 'succeeded', reading: { answer: 'corrected', solved_text: 'Solve 5y + 2 = 17' } });
    expect((await answer({ confirm: true })).status).toBe(409);
  });

  it('returns the same run for a duplicate submission while it runs, and cancels it on the owner’s command', async () => {
    const url = pages.url('/slow/problem.txt');
    const first = await alice.submitUrl(url);
    expect(first.status).toBe(202);
    const duplicate = await alice.submitUrl(url);
    expect(duplicate.status).toBe(202);
    expect(duplicate.body.run_id).toBe(first.body.run_id);
    expect(duplicate.body.eta_seconds === undefined).toBe(false);

    const bob = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'bob');
    expect((await bob.request(`/runs/${first.body.run_id}/cancel`, { method: 'POST' })).status).toBe(404);
    const cancel = await alice.request(`/runs/${first.body.run_id}/cancel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(cancel.status).toBe(202);
    const run = await alice.untilTerminal(first.body.run_id);
    expect(run.state).toBe('CANCELLED');
    // The slow page answers later; the late MediaNormalized changes nothing.
    await new Promise((r) => setTimeout(r, 3_500));
    expect((await alice.run(first.body.run_id)).state).toBe('CANCELLED');

    // Submitted again after the cancel: attempt 2 of the same run, which runs to the end (ADR 0016).
    const again = await alice.submitUrl(url, 60);
    expect(again.body).toMatchObject({ run_id: first.body.run_id, attempt_no: 2 });
    expect(again.body.result).toMatchObject({ status: 'succeeded', attempt_no: 2 });
  });

  /** The states `openpaw solve` printed as `[  t.ts] STATE` lines, in order. */
  const printedStates = (stdout: string): string[] => [...stdout.matchAll(/^\[\s*\d+\.\ds\] ([A-Z_]+)/gm)].map((m) => m[1] ?? '');

  it('the CLI (`openpaw solve`) prints each state as the run enters it (INGESTING while ingestion is held), then the solution; a file goes up as an image', async () => {
    const env = cliEnvironment(platform.gatewayUrl, platform.jwtSecret, 'alice');
    platform.freeze('ingestion');
    const cli = startCli(root, ['solve', 'Solve for m: 6m - 4 = 20'], env);
    try {
      const runId = (await cli.line(/^run [0-9a-f-]{36}/)).text.slice('run '.length, 'run '.length + 36);
      await cli.line(/\] INGESTING( |$)/);
      // Printed while the service of that step is stopped: the run is provably there, so the line came live.
      expect(await alice.run(runId)).toMatchObject({ state: 'INGESTING', terminal: false });
    } finally {
      platform.thaw('ingestion');
    }
    const solved = await cli.exited;
    expect({ code: solved.code, stderr: solved.stderr }).toEqual({ code: 0, stderr: '' });
    const runId = /^run ([0-9a-f-]{36})$/m.exec(solved.stdout)?.[1] ?? '';
    // Spec 01's states in order, each once (INITIATED may already be past when the submission answers).
    expect(printedStates(solved.stdout).filter((s) => s !== 'INITIATED')).toEqual(['INGESTING', 'RETRIEVING', 'GENERATING_SOLUTION', 'REGISTERING', 'INDEXING', 'SUCCEEDED']);
    expect(solved.stdout).toMatch(/^SUCCEEDED \(outcome: new\)$/m);
    expect(solved.stdout).toContain(`solution:  ${platform.gatewayUrl}/runs/${runId}/solution`);
    expect((await alice.request(`/runs/${runId}/solution`)).status).toBe(200);

    const dir = await mkdtemp(join(tmpdir(), 'openpaw-solve-cli-'));
    try {
      const image = join(dir, 'problem.png');
      await writeFile(image, await renderProblemPng('5x - 10 = 15'));
      const uploaded = await runCli(root, ['solve', image, '--json'], env);
      expect({ code: uploaded.code, stderr: uploaded.stderr }).toEqual({ code: 0, stderr: expect.stringContaining(`submitting image ${image} (${(await stat(image)).size} bytes)`) });
      const document = JSON.parse(uploaded.stdout) as { version: number; command: string; exitCode: number; result: { state: string } };
      expect(document).toMatchObject({ version: 1, command: 'solve', exitCode: 0, result: { state: 'SUCCEEDED' } });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the CLI (`openpaw solve --confirm-reading`): a photo read unsure waits; the CLI shows the reading and its doubts and sends the correction typed on stdin', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'openpaw-reading-cli-'));
    try {
      const photo = join(dir, 'blurred.jpg');
      await writeFile(photo, await unsurePhotoOf('Solve 5y + 2 = 17'));
      const solved = await runCli(root, ['solve', photo, '--confirm-reading'], cliEnvironment(platform.gatewayUrl, platform.jwtSecret, 'dora'), { stdin: 'Solve 5y + 2 = 17\n' });
      expect({ code: solved.code, stderr: solved.stderr }).toEqual({ code: 0, stderr: expect.stringContaining('solve it as read?') });
      expect(printedStates(solved.stdout)).toContain('AWAITING_READING_CONFIRMATION');
      expect(solved.stdout).toMatch(/^reading: {3}.+$/m);
      expect(solved.stdout).toMatch(/^ {2}doubt: {3}.+$/m);
      expect(printedStates(solved.stdout).at(-1)).toBe('SUCCEEDED');
      const runId = /^run ([0-9a-f-]{36})/m.exec(solved.stdout)?.[1] ?? '';
      expect((await (await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'dora')).run(runId)).view).toMatchObject({ reading: { answer: 'corrected', solved_text: 'Solve 5y + 2 = 17' } });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the CLI: `solve --no-wait`, `status` and `runs` while the run waits (exit 5), `cancel`, then `status` exits 4; `login` saves a profile that later commands use alone', async () => {
    const env = cliEnvironment(platform.gatewayUrl, platform.jwtSecret, 'carol');
    const carol = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'carol');
    platform.freeze('ingestion');
    let runId: string;
    try {
      const submitted = await runCli(root, ['solve', 'Solve for q: 3q + 3 = 27', '--no-wait', '--json'], env);
      expect(submitted.code).toBe(5);
      const document = JSON.parse(submitted.stdout) as { version: number; exitCode: number; result: { runId: string; terminal: boolean } };
      expect(document).toMatchObject({ version: 1, exitCode: 5, result: { terminal: false } });
      runId = document.result.runId;
      await carol.untilState(runId, ['INGESTING']);
      const status = await runCli(root, ['status', runId], env);
      expect(status).toMatchObject({ code: 5, stdout: expect.stringContaining(`run ${runId}: INGESTING (running), attempt 1, retrieve_or_generate`) });
      const listed = await runCli(root, ['runs', '--state', 'INGESTING'], env);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(new RegExp(`^${runId}  INGESTING `, 'm'));
      const cancel = await runCli(root, ['cancel', runId, '--reason', 'typed the wrong problem'], env);
      expect(cancel).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^(cancelled: run ${runId} is CANCELLED|cancel requested; run ${runId} is still \\w+)$`, 'm')) });
      expect(await carol.untilTerminal(runId)).toMatchObject({ state: 'CANCELLED' });
    } finally {
      platform.thaw('ingestion');
    }
    expect(await runCli(root, ['status', runId], env)).toMatchObject({ code: 4, stdout: expect.stringContaining(`run ${runId}: CANCELLED, attempt 1`) });
    expect(await runCli(root, ['cancel', runId], env)).toMatchObject({ code: 1, stderr: expect.stringContaining('cancel refused') });
    // Someone else's run is not found: an API error (exit 3), not a state.
    expect(await runCli(root, ['status', runId], cliEnvironment(platform.gatewayUrl, platform.jwtSecret, 'mallory'))).toMatchObject({ code: 3 });

    // `login`: the token from stdin, checked against the gateway, saved; then no token or URL in the environment.
    const config = await mkdtemp(join(tmpdir(), 'openpaw-login-cli-'));
    try {
      const bare = { ...process.env, OPENPAW_CONFIG_DIR: config, OPENPAW_API_URL: '', OPENPAW_JWT_SECRET: '', OPENPAW_TOKEN: '', OPENPAW_PROFILE: '' };
      const token = carol.authorization.slice('Bearer '.length);
      expect(await runCli(root, ['login', '--api-url', platform.gatewayUrl], bare, { stdin: 'not-a-token\n' })).toMatchObject({ code: 3 });
      expect(await runCli(root, ['login', '--api-url', platform.gatewayUrl], bare, { stdin: `${token}\n` })).toMatchObject({ code: 0, stdout: expect.stringContaining('as profile "default"') });
      expect((await stat(join(config, 'profiles.json'))).mode & 0o777).toBe(0o600);
      expect(await runCli(root, ['status', runId], bare)).toMatchObject({ code: 4, stdout: expect.stringContaining(`run ${runId}: CANCELLED`) });
    } finally {
      await rm(config, { recursive: true, force: true });
    }
  });

  /** Solve runs started by these runs (children of theirs): how many times the problem was solved. */
  async function solvesOf(runIds: readonly string[]): Promise<number> {
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const rows = await db.query<{ count: number }>(
        "select count(*)::int as count from coordinator.workflow_runs where type = 'solve_workflow' and parent_run_id = any($1::uuid[])",
        [runIds],
      );
      return rows.rows[0]?.count ?? 0;
    } finally {
      await db.end();
    }
  }

  it('answers the same problem submitted differently by the same user from the earlier run (spec 01 idempotency, ADR 0016); another user or intent is its own', async () => {
    // Other bytes (so another byte key, another run), the same problem once ingestion normalised it
    // (a trailing full stop is dropped): the same signature, user and intent.
    const first = await alice.submitText('Solve for z: 7z + 1 = 50.', 60);
    expect(first.body.result).toMatchObject({ status: 'succeeded', outcome: 'new' });
    const retyped = await alice.submitText('Solve for z: 7z + 1 = 50', 60);
    expect(retyped.body.run_id).not.toBe(first.body.run_id);
    expect(retyped.body.result).toMatchObject({
      status: 'succeeded',
      outcome: 'new',
      cached_from: first.body.run_id,
      cost_usd: 0,
      output: { asset_version_id: first.body.result?.output.asset_version_id, is_approximate: false },
    });
    expect(await solvesOf([first.body.run_id, retyped.body.run_id])).toBe(1);
    expect(await (await alice.request(`/runs/${retyped.body.run_id}/solution`)).text()).toBe(await (await alice.request(`/runs/${first.body.run_id}/solution`)).text());

    // Another user's identical text is not alice's run: retrieval finds the solution (a hit).
    const bob = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'bob');
    const bobs = await bob.submitText('Solve for z: 7z + 1 = 50', 60);
    expect(bobs.body.result).toMatchObject({ status: 'succeeded', outcome: 'hit' });
    expect(bobs.body.result).not.toHaveProperty('cached_from');
    // Another intent is another question about the problem: not answered from the `solve` run.
    const explained = await alice.submitText('Solve for z: 7z + 1 = 50', 60, 'explain');
    expect(explained.body.result?.status).toBe('succeeded');
    expect(explained.body.result).not.toHaveProperty('cached_from');
  });

  it('given two submissions of one problem by one user at once, solves it once: one run waits for the other and ends with its result', async () => {
    const [a, b] = await Promise.all([alice.submitText('Solve for k: 9k - 6 = 30.', 60), alice.submitText('Solve for k: 9k - 6 = 30', 60)]);
    expect(a.body.run_id).not.toBe(b.body.run_id);
    expect([a.body.result?.status, b.body.result?.status]).toEqual(['succeeded', 'succeeded']);
    const cached = [a, b].filter((s) => s.body.result?.cached_from !== undefined);
    expect(cached).toHaveLength(1);
    const [answered] = cached;
    const solver = answered === a ? b : a;
    expect(answered?.body.result).toMatchObject({ cached_from: solver.body.run_id, output: { asset_version_id: solver.body.result?.output.asset_version_id } });
    expect(await solvesOf([a.body.run_id, b.body.run_id])).toBe(1);
  });

  /** The state a service's step holds the run in; the coordinator is crashed while ingestion holds it in INGESTING. */
  const STEP_STATE: Record<'ingestion' | 'retrieval' | 'solve' | 'assets', string> = {
    ingestion: 'INGESTING',
    retrieval: 'RETRIEVING',
    solve: 'GENERATING_SOLUTION',
    assets: 'REGISTERING',
  };

  async function stepLog(runId: string): Promise<{ stateBefore: string | null; stateAfter: string; step: string; occurredAt: Date }[]> {
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const rows = await db.query<{ state_before: string | null; state_after: string; step_name: string; occurred_at: Date }>(
        'select state_before, state_after, step_name, occurred_at from coordinator.workflow_step_logs where workflow_run_id = $1 order by id',
        [runId],
      );
      return rows.rows.map((r) => ({ stateBefore: r.state_before, stateAfter: r.state_after, step: r.step_name, occurredAt: r.occurred_at }));
    } finally {
      await db.end();
    }
  }

  it.each<'coordinator' | keyof typeof STEP_STATE>(['coordinator', 'ingestion', 'retrieval', 'solve', 'assets'])(
    'survives kill -9 of %s mid-step: SUCCEEDED with exactly one asset version',
    async (service) => {
      // The service owning the step is frozen, so the step is provably in flight when the kill comes:
      // the run's step log says it is in that step's state, and it leaves that state only after the restart.
      const owner = service === 'coordinator' ? 'ingestion' : service;
      const state = STEP_STATE[owner];
      platform.freeze(owner);
      let killedAt: Date;
      try {
        const submitted = await alice.submitText(`7y + 2 = ${30 + ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets'].indexOf(service) * 7}`);
        const runId = submitted.body.run_id;
        // A solve step runs in the solve_workflow child run; the parent waits in GENERATING_SOLUTION.
        const deadline = Date.now() + 30_000;
        while ((await stepLog(runId)).at(-1)?.stateAfter !== state) {
          if (Date.now() > deadline) throw new Error(`run ${runId} never reached ${state}: ${JSON.stringify(await stepLog(runId))}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        killedAt = new Date();
        await platform.kill(service);
        expect((await stepLog(runId)).at(-1)?.stateAfter).toBe(state);
        if (service === 'coordinator') platform.thaw(owner);
        await new Promise((r) => setTimeout(r, 300));
        await platform.start(service);

        const run = await alice.untilTerminal(runId, 90_000);
        expect(run.state).toBe('SUCCEEDED');
        const left = (await stepLog(runId)).find((l) => l.stateBefore === state && l.stateAfter !== state);
        expect(left?.occurredAt.getTime()).toBeGreaterThan(killedAt.getTime());
        const assetVersionId = (run.view['output'] as { asset_version_id: string }).asset_version_id;
        const asset = (await (await alice.request(`/assets/${assetVersionId}`)).json()) as { version: number | null };
        expect(asset.version).toBe(1);
      } finally {
        platform.thaw(owner);
      }
    },
  );
});
