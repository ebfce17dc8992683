import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import { EXIT, runCli } from './cli.js';
import { localBlobPath } from './local-blob-path.js';
import { CLI_TEST_SECRET, statesIn, useCliHarness } from './testing/cli-harness.js';
import { type RunScript, runRecord, SOLUTION_ID, STATES, succeededView } from './testing/fake-gateway.js';
import { CLI_VERSION, JSON_OUTPUT_VERSION } from './version.js';

/** The CLI's own verbs over a fake gateway speaking its wire format: solving, runs, login, output modes, completions. */
describe('openpaw CLI', () => {
  const { gateway, cli, blobDir, workDir } = useCliHarness();

  it('solves text: follows the states in order across a 404 and a dropped stream, prints where the solution is, exits 0', async () => {
    const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f1';
    const events = STATES.map((state, i) => runRecord(runId, i + 1, state, 1, state === 'SUCCEEDED' ? succeededView(runId) : { status: 'running', state }));
    gateway.reset({
      submission: { status: 202, body: { run_id: runId, state: 'INITIATED', status: 'running', terminal: false, attempt_no: 1, eta_seconds: 6 } },
      connections: [{ notFound: true }, { events: events.slice(0, 2), then: 'drop' }, { events: events.slice(2), then: 'end' }],
      final: events.at(-1)!,
    });
    const solutionFile = localBlobPath({ OPENPAW_BLOB_DIR: blobDir() }, workDir(), `solutions/p/${SOLUTION_ID}.html`)!;
    await mkdir(join(solutionFile, '..'), { recursive: true });
    await writeFile(solutionFile, '<html></html>');

    const { io, out, err } = cli();
    const code = await runCli(['solve', '2x + 3 = 7'], io);

    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^\(lost the event stream: .+; reconnecting\)$/);
    expect(statesIn(out)).toEqual(STATES);
    expect(code).toBe(EXIT.succeeded);
    expect(out).toEqual(
      expect.arrayContaining([
        `run ${runId}`,
        'SUCCEEDED (outcome: new)',
        'cost:      $0.0123',
        'duration:  1.84 s',
        'answer:    x = 2',
        `solution:  ${gateway.url}/runs/${runId}/solution`,
        `file:      ${solutionFile}`,
        `video:     rendering in the background; ${gateway.url}/runs/${runId}/video`,
      ]),
    );
    expect(out[0]).toBe(`submitting text "2x + 3 = 7" to ${gateway.url}`);
    expect(out[2]).toMatch(/^\[\s+0\.\ds\] INITIATED {2}\(eta ~6 s\)$/);

    const submit = gateway.requests.find((r) => r.path === '/problems')!;
    expect(submit.headers['content-type']).toBe('application/json');
    expect(JSON.parse(submit.body.toString())).toEqual({ text: '2x + 3 = 7' });
    // A dev token minted with OPENPAW_JWT_SECRET, as the gateway expects it.
    const token = /^Bearer (.+)$/.exec(submit.headers.authorization ?? '')?.[1] ?? '';
    const { payload } = await jwtVerify(token, new TextEncoder().encode(CLI_TEST_SECRET), { issuer: 'openpaw', audience: 'openpaw-api' });
    expect(payload.sub).toBe('local-user');
    // The reconnection resumed after the last event it saw.
    const eventRequests = gateway.requests.filter((r) => r.path.endsWith('/events'));
    expect(eventRequests.map((r) => r.headers['last-event-id'])).toEqual([undefined, undefined, '2']);
  });

  it('exits non-zero when the run fails or is cancelled, naming the error', async () => {
    for (const state of ['FAILED', 'CANCELLED']) {
      const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f2';
      const view = { status: state.toLowerCase(), state, outcome: null, output: null, cost_usd: 0, duration_ms: 900, error_code: state === 'FAILED' ? 'media_rejected' : null };
      gateway.reset({
        submission: { status: 202, body: { run_id: runId, state: 'INITIATED', status: 'running', terminal: false, attempt_no: 1, eta_seconds: null } },
        connections: [{ events: [runRecord(runId, 1, 'INITIATED'), runRecord(runId, 2, 'INGESTING'), runRecord(runId, 3, state, 1, view)], then: 'end' }],
        final: runRecord(runId, 3, state, 1, view),
      });
      const { io, out } = cli({ OPENPAW_TOKEN: 'given.bearer.token' });
      expect(await runCli(['solve', 'x', '=', '?'], io)).toBe(state === 'FAILED' ? EXIT.failed : EXIT.cancelled);
      expect(statesIn(out)).toEqual(['INITIATED', 'INGESTING', state]);
      if (state === 'FAILED') expect(out).toContain('error:     media_rejected');
      expect(gateway.requests[0]?.headers.authorization).toBe('Bearer given.bearer.token');
      expect(JSON.parse(gateway.requests[0]!.body.toString())).toEqual({ text: 'x = ?' });
    }
  });

  it('uploads an existing file as an image, and sends an http(s) argument as a URL', async () => {
    const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f3';
    const photo = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
    await writeFile(join(workDir(), 'photo.png'), photo);
    const done = runRecord(runId, 2, 'SUCCEEDED', 1, succeededView(runId));
    const script: RunScript = {
      submission: { status: 202, body: { run_id: runId, state: 'INITIATED', status: 'running', terminal: false, attempt_no: 1 } },
      connections: [{ events: [runRecord(runId, 1, 'INITIATED'), done], then: 'end' }],
      final: done,
    };
    gateway.reset(script);
    const { io } = cli();
    expect(await runCli(['solve', './photo.png', '--intent', 'explain'], io)).toBe(EXIT.succeeded);
    const upload = gateway.requests[0]!;
    expect(upload.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = await new Response(new Uint8Array(upload.body), { headers: { 'content-type': upload.headers['content-type']! } }).formData();
    const file = form.get('file') as File;
    expect(file.name).toBe('photo.png');
    expect(file.type).toBe('image/png');
    expect(Buffer.from(await file.arrayBuffer()).equals(photo)).toBe(true);
    expect(form.get('intent')).toBe('explain');

    gateway.reset(script);
    expect(await runCli(['solve', 'https://example.com/problem.png'], cli().io)).toBe(EXIT.succeeded);
    expect(JSON.parse(gateway.requests[0]!.body.toString())).toEqual({ url: 'https://example.com/problem.png' });
  });

  it('prints a cached result at once without following events', async () => {
    const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f4';
    gateway.reset({
      submission: { status: 200, body: { run_id: runId, state: 'SUCCEEDED', status: 'succeeded', terminal: true, attempt_no: 1, result: succeededView(runId) } },
      connections: [],
      final: runRecord(runId, 7, 'SUCCEEDED', 1, succeededView(runId)),
    });
    const { io, out } = cli();
    expect(await runCli(['solve', '2x + 3 = 7'], io)).toBe(EXIT.succeeded);
    expect(out[1]).toBe(`run ${runId} (answered from an earlier run)`);
    expect(statesIn(out)).toEqual(['SUCCEEDED']);
    expect(gateway.requests.some((r) => r.path.endsWith('/events'))).toBe(false);
  });

  it("follows a re-attempt past the previous attempt's FAILED", async () => {
    const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f5';
    const failed = runRecord(runId, 3, 'FAILED', 1, { status: 'failed', state: 'FAILED', error_code: 'solve_failed' });
    const done = runRecord(runId, 6, 'SUCCEEDED', 2, succeededView(runId, 2));
    gateway.reset({
      submission: { status: 202, body: { run_id: runId, state: 'INITIATED', status: 'running', terminal: false, attempt_no: 2 } },
      connections: [
        { events: [failed], then: 'end' },
        { events: [runRecord(runId, 4, 'INITIATED', 2), runRecord(runId, 5, 'INGESTING', 2), done], then: 'end' },
      ],
      final: done,
    });
    const { io, out } = cli();
    expect(await runCli(['solve', 'x/2 = 9'], io)).toBe(EXIT.succeeded);
    expect(out[1]).toBe(`run ${runId} (attempt 2)`);
    expect(statesIn(out)).toEqual(['INITIATED', 'INGESTING', 'SUCCEEDED']);
  });

  it('reports a run with status, and cancels one (refusal exits non-zero)', async () => {
    const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f6';
    const failed = runRecord(runId, 3, 'FAILED', 1, { status: 'failed', state: 'FAILED', error_code: 'solve_failed', cost_usd: 0.5 });
    gateway.reset({ submission: { status: 202, body: { run_id: runId } }, connections: [], final: failed });
    const status = cli();
    expect(await runCli(['status', runId], status.io)).toBe(EXIT.failed);
    expect(status.out).toEqual(expect.arrayContaining([`run ${runId}: FAILED, attempt 1, retrieve_or_generate`, 'error:     solve_failed', 'cost:      $0.5000']));

    const cancelled = cli();
    expect(await runCli(['cancel', runId, '--reason', 'typo'], cancelled.io)).toBe(EXIT.succeeded);
    expect(cancelled.out).toEqual([`cancelled: run ${runId} is CANCELLED`]);
    expect(JSON.parse(gateway.requests.at(-1)!.body.toString())).toEqual({ reason: 'typo' });

    const refusedId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9';
    gateway.reset({ submission: { status: 202, body: { run_id: refusedId } }, connections: [], final: {} });
    const refused = cli();
    expect(await runCli(['cancel', refusedId], refused.io)).toBe(EXIT.failed);
    expect(refused.err).toEqual(['cancel refused (illegal_transition): REGISTERING does not accept CancelRun']);
  });

  it('refuses to run without credentials or a problem, and reports API errors', async () => {
    const noCredentials = cli({ OPENPAW_JWT_SECRET: '' });
    expect(await runCli(['solve', '1 + 1'], noCredentials.io)).toBe(EXIT.usage);
    expect(noCredentials.err[0]).toMatch(/^no credentials: run `openpaw login`, or set OPENPAW_TOKEN/);

    const noProblem = cli();
    expect(await runCli(['solve'], noProblem.io)).toBe(EXIT.usage);
    expect(await runCli(['frobnicate'], cli().io)).toBe(EXIT.usage);

    gateway.reset({
      submission: { status: 400, body: { error: 'validation_failed', location: 'body', issues: [{ path: 'text', message: 'text is empty' }] } },
      connections: [],
      final: {},
    });
    const refused = cli();
    expect(await runCli(['solve', 'anything'], refused.io)).toBe(EXIT.apiError);
    expect(refused.err).toEqual(['error: 400 validation_failed: text: text is empty']);

    const unreachable = cli({ OPENPAW_API_URL: 'http://127.0.0.1:1' });
    expect(await runCli(['status', '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f6'], unreachable.io)).toBe(EXIT.apiError);
    expect(unreachable.err[0]).toMatch(/^error: cannot reach the API at http:\/\/127\.0\.0\.1:1/);
  });
  it('prints its version, and usage built from the verbs', async () => {
    const version = cli();
    expect(await runCli(['--version'], version.io)).toBe(EXIT.succeeded);
    expect(version.out).toEqual([`openpaw ${CLI_VERSION}`]);
    const packageJson = JSON.parse(await readFile(join(import.meta.dirname, '../package.json'), 'utf8')) as { version: string; bin: Record<string, string> };
    expect(packageJson.version).toBe(CLI_VERSION);
    expect(Object.keys(packageJson.bin)).toEqual(['openpaw']);
    const help = cli();
    expect(await runCli(['--help'], help.io)).toBe(EXIT.succeeded);
    for (const verb of ['solve', 'papers', 'library', 'status', 'cancel', 'runs', 'login', 'completion']) expect(help.out[0]).toContain(`openpaw ${verb} `);
    const bad = cli();
    expect(await runCli(['status', '--frobnicate'], bad.io)).toBe(EXIT.usage);
    expect(bad.err[0]).toMatch(/Unknown option '--frobnicate'/);
  });

  it('--json: one versioned document on stdout, progress on stderr; --no-wait and a running status exit 5', async () => {
    const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f7';
    const running = runRecord(runId, 2, 'INGESTING');
    gateway.reset({
      submission: { status: 202, body: { run_id: runId, state: 'INITIATED', status: 'running', terminal: false, attempt_no: 1 } },
      connections: [],
      final: running,
    });
    const submitted = cli();
    expect(await runCli(['solve', '2x = 4', '--no-wait', '--json'], submitted.io)).toBe(EXIT.stillRunning);
    expect(submitted.out).toHaveLength(1);
    expect(JSON.parse(submitted.out[0]!)).toEqual({ version: JSON_OUTPUT_VERSION, command: 'solve', exitCode: EXIT.stillRunning, result: { runId, state: 'INITIATED', terminal: false } });
    expect(submitted.err).toContain(`run ${runId}`);
    expect(gateway.requests.some((r) => r.path.endsWith('/events'))).toBe(false);

    const status = cli();
    expect(await runCli(['status', runId, '--json'], status.io)).toBe(EXIT.stillRunning);
    expect(JSON.parse(status.out[0]!)).toMatchObject({ version: JSON_OUTPUT_VERSION, command: 'status', exitCode: 5, result: { runId, state: 'INGESTING' } });

    const refused = cli({ OPENPAW_API_URL: 'http://127.0.0.1:1' });
    expect(await runCli(['status', runId, '--json'], refused.io)).toBe(EXIT.apiError);
    expect(JSON.parse(refused.out[0]!)).toMatchObject({ command: 'status', exitCode: 3, error: { message: expect.stringMatching(/cannot reach the API/) } });
  });

  it('lists runs, and logs in: the token (from stdin) is checked, saved in a 0600 profile file and used without any token in the environment', async () => {
    const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f8';
    gateway.reset({ submission: { status: 202, body: { run_id: runId } }, connections: [], final: { ...runRecord(runId, 7, 'SUCCEEDED'), createdAt: '2026-11-27T03:00:00.000Z' } });
    const listed = cli();
    expect(await runCli(['runs', '--state', 'SUCCEEDED', '--limit', '5'], listed.io)).toBe(EXIT.succeeded);
    expect(listed.out[0]).toMatch(new RegExp(`^${runId} +SUCCEEDED +retrieve_or_generate +2026-11-27T03:00:00.000Z$`));
    // The hint pages on the same list (a cursor alone would page over every state).
    expect(listed.out[1]).toBe('more: openpaw runs --state SUCCEEDED --limit 5 --cursor next-page');
    expect(gateway.requests.at(-1)!.path).toBe('/runs?state=SUCCEEDED&limit=5');
    // Summaries unless asked: `--view full` asks the gateway for every run's view.
    expect(await runCli(['runs', '--view', 'full', '--json'], cli().io)).toBe(EXIT.succeeded);
    expect(gateway.requests.at(-1)!.path).toBe('/runs?view=full');
    const quoted = cli();
    expect(await runCli(['runs', '--state', "it's done", '--view', 'full'], quoted.io)).toBe(EXIT.succeeded);
    expect(quoted.out.at(-1)).toBe("more: openpaw runs --state 'it'\\''s done' --view full --cursor next-page");

    const configDir = await mkdtemp(join(tmpdir(), 'openpaw-cli-config-'));
    const noEnvToken = { OPENPAW_JWT_SECRET: '', OPENPAW_CONFIG_DIR: configDir };
    const wrong = cli(noEnvToken);
    wrong.io = { ...wrong.io, prompt: () => Promise.resolve('wrong.token') };
    expect(await runCli(['login'], wrong.io)).toBe(EXIT.apiError);
    await expect(stat(join(configDir, 'profiles.json'))).rejects.toThrow();

    const login = cli(noEnvToken);
    login.io = { ...login.io, prompt: () => Promise.resolve('good.token\n') };
    expect(await runCli(['login', '--profile', 'work'], login.io)).toBe(EXIT.succeeded);
    const file = join(configDir, 'profiles.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 1, current: 'work', profiles: { work: { apiUrl: gateway.url, token: 'good.token' } } });

    // A variable set to nothing is unset: the profile's URL and token are used.
    const later = cli({ ...noEnvToken, OPENPAW_API_URL: '', OPENPAW_TOKEN: '', OPENPAW_PROFILE: '' });
    expect([await runCli(['runs'], later.io), later.err]).toEqual([EXIT.succeeded, []]);
    expect(gateway.requests.at(-1)!.headers.authorization).toBe('Bearer good.token');
    expect(await runCli(['runs', '--profile', 'home'], cli(noEnvToken).io)).toBe(EXIT.usage);
    await rm(configDir, { recursive: true, force: true });
  });

  it('prints completion scripts for bash, zsh and fish from the verb registry', async () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const { io, out } = cli();
      expect(await runCli(['completion', shell], io)).toBe(EXIT.succeeded);
      expect(out.join('\n')).toContain('papers');
      expect(out.join('\n')).toContain(shell === 'fish' ? "-l no-wait" : '--no-wait');
    }
    const bash = cli();
    await runCli(['completion', 'bash'], bash.io);
    expect(bash.out.join('\n')).toContain('complete -F _openpaw openpaw');
    expect(await runCli(['completion', 'tcsh'], cli().io)).toBe(EXIT.usage);
  });
});
