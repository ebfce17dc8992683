import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT, runCli } from './cli.js';
import { useCliHarness } from './testing/cli-harness.js';
import { runRecord } from './testing/fake-gateway.js';

/** The CLI's workflow verbs over a fake gateway speaking its wire format: library, papers, degrees, keys, research. */
describe('openpaw CLI: workflow verbs', () => {
  const { gateway, cli, workDir } = useCliHarness();

  it('library: streams the file with its length and media type, and prints each part as the gateway answers it', async () => {
    gateway.reset({ submission: { status: 202, body: { run_id: 'none' } }, connections: [], final: {} });
    const file = join(workDir(), 'refs.bib');
    const content = '@article{a,\n  title = {Über graphs}\n}\n';
    await writeFile(file, content);
    const importing = cli();
    expect(await runCli(['library', 'refs.bib'], importing.io)).toBe(EXIT.succeeded);
    const [request] = gateway.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/library/references/file?format=bibtex', headers: { 'content-type': 'application/x-bibtex', 'content-length': String(Buffer.byteLength(content)) } });
    expect(request?.body.toString('utf8')).toBe(content);
    expect(importing.out).toEqual(
      expect.arrayContaining([
        `  part 1 (${Math.round((100 * Math.floor(Buffer.byteLength(content) / 2)) / Buffer.byteLength(content))} %): 2 added, 0 updated`,
        '  entry starting on line 9 is 600000 bytes, more than the 491520 one import carries: not imported',
        '  part 2 (100 %): 1 added, 1 updated',
        `imported ${file}: 3 added, 1 updated, 2 skipped, in 2 parts`,
        '  line 9: too large',
        '  part 2, entry 0: no title',
      ]),
    );
  });

  it('papers: follows the search on its event stream (no polling), asks at a checkpoint, and exits 5 when left waiting', async () => {
    const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0fa';
    const view = (state: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
      status: 'running', state, iteration: 1, options: { maxIterations: 3 }, checkpoint: null, error: null, result: null, completion: null, iterations: [], ...extra,
    });
    const checkpoint = {
      checkpointId: '5a0b5c1e-2d3f-4a5b-8c6d-9e0f1a2b3c4d',
      kind: 'strategy_confirmation',
      iteration: 1,
      payload: {
        strategy: { queries: [{ booleanQuery: 'graph AND attention' }], sources: ['openalex'], filters: { yearFrom: 2016, yearTo: null, language: null }, excludedTerms: [] },
        diff: null,
        origin: { origin: 'local_rules', model: 'local/rules', method: 'LOCAL rule-based strategy' },
      },
    };
    const waiting = { ...runRecord(runId, 2, 'AWAITING_STRATEGY', 1, view('AWAITING_STRATEGY', { checkpoint, status: 'waiting' })), workflowType: 'paper_search' };
    const searching = { ...runRecord(runId, 3, 'SEARCHING', 1, view('SEARCHING')), workflowType: 'paper_search' };
    const completed = { ...runRecord(runId, 4, 'COMPLETED', 1, view('COMPLETED', { status: 'completed', completion: 'approved', iterations: [{}] })), workflowType: 'paper_search', terminal: true };
    gateway.reset({
      submission: { status: 202, body: { run_id: runId } },
      connections: [{ notFound: true }, { events: [runRecord(runId, 1, 'PLANNING', 1, view('PLANNING')), waiting], then: 'drop' }, { events: [searching, completed], then: 'end' }],
      final: completed,
    });
    const answers = ['a'];
    const approving = cli();
    approving.io = { ...approving.io, prompt: () => Promise.resolve(answers.shift()) };
    expect(await runCli(['papers', 'graph attention networks'], approving.io)).toBe(EXIT.succeeded);
    expect(approving.out).toEqual(expect.arrayContaining([`paper search ${runId}`, '  PLANNING (iteration 1/3)', 'checkpoint 1 of iteration 1: the search strategy, proposed by local rules (no model was asked: no planner model is configured)', '  query 1: graph AND attention', '  SEARCHING (iteration 1/3)', 'completed (approved) after 1 iteration: 0 papers']));
    const paths = gateway.requests.map((r) => `${r.method} ${r.path}`);
    expect(paths.filter((p) => p.startsWith('GET /paper-searches'))).toEqual([]);
    expect(paths).toContain(`POST /paper-searches/${runId}/checkpoints/${checkpoint.checkpointId}/decision`);
    expect(gateway.requests.filter((r) => r.path.endsWith('/events')).map((r) => r.headers['last-event-id'])).toEqual([undefined, undefined, '2']);

    gateway.reset({ submission: { status: 202, body: { run_id: runId } }, connections: [{ events: [waiting], then: 'end' }], final: waiting });
    const leaving = cli();
    expect(await runCli(['papers', '--resume', runId], leaving.io)).toBe(EXIT.stillRunning);
    expect(leaving.out).toContain(`the search waits at strategy_confirmation; decide later with: openpaw papers --resume ${runId}`);
  });
  it('degrees: streams the evidence live across a dropped stream (resuming after the last event), prints the chain, exits 0; no path exits 1', async () => {
    const runId = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
    const card = (from: string, to: string, edgeConf: number) => ({ from, to, edgeConf, imageUrl: `local-world:${from}-${to}.png`, sourcePageUrl: null, confidenceFrom: 97, confidenceTo: edgeConf, images: 1 });
    const events = [
      { seq: 1, type: 'status', data: { message: 'Checking a direct connection…' } },
      { seq: 2, type: 'evidence', data: card('Ada Stone', 'Xavier Reed', 91) },
      { seq: 3, type: 'path_update', data: { path: ['Ada Stone', 'Xavier Reed'], hops: 1, reversePath: ['Bea North'] } },
      { seq: 4, type: 'evidence', data: card('Xavier Reed', 'Bea North', 88) },
      { seq: 5, type: 'final', data: { path: ['Ada Stone', 'Xavier Reed', 'Bea North'], confidenceMap: { bottleneck: 88, cumulative: 0.8008 } } },
    ];
    gateway.reset({
      submission: { status: 202, body: { run_id: runId } },
      connections: [{ notFound: true }, { events: events.slice(0, 3), then: 'drop' }, { events: events.slice(3), then: 'end' }],
      final: { runId, state: 'SUCCEEDED', terminal: true },
    });
    const found = cli();
    expect(await runCli(['degrees', 'Ada Stone', 'Bea North', '--max-hops', '4'], found.io)).toBe(EXIT.succeeded);
    expect(found.out).toEqual(
      expect.arrayContaining([
        `run ${runId}: Ada Stone → Bea North`,
        '… Checking a direct connection…',
        // B's chain is B alone: nothing to show after the gap yet.
        '→ Ada Stone → Xavier Reed',
        'Found 2 degree(s): Ada Stone → Xavier Reed → Bea North\n  weakest edge 88.0%, whole chain 80.1%',
      ]),
    );
    expect(found.out.filter((line) => line.startsWith('✓ '))).toHaveLength(2);
    const posted = gateway.requests.find((r) => r.method === 'POST');
    expect(JSON.parse(posted?.body.toString() ?? '{}')).toEqual({ from: 'Ada Stone', to: 'Bea North', options: { maxHops: 4 } });
    expect(posted?.headers['idempotency-key']).toEqual(expect.any(String));
    expect(gateway.requests.filter((r) => r.path.endsWith('/events')).map((r) => r.headers['last-event-id'])).toEqual([undefined, undefined, '3']);

    gateway.reset({
      submission: { status: 202, body: { run_id: runId } },
      connections: [{ events: [{ seq: 1, type: 'no_path', data: { message: 'No verified visual connection found within 2 degrees at ≥80% confidence.', reason: 'hop_limit_reached' } }], then: 'end' }],
      final: { runId, state: 'FAILED', terminal: true },
    });
    const none = cli();
    expect(await runCli(['degrees', 'Ada Stone', 'Bea North', '--json'], none.io)).toBe(EXIT.failed);
    expect(JSON.parse(none.out.join('\n'))).toMatchObject({ result: { runId, outcome: 'no_path', no_path: { reason: 'hop_limit_reached' } } });

    const usage = cli();
    expect(await runCli(['degrees', 'Ada Stone'], usage.io)).toBe(EXIT.usage);
    expect(await runCli(['degrees', 'Ada Stone', 'Bea North', '--max-hops', '9'], usage.io)).toBe(EXIT.usage);
    expect(usage.err.join('\n')).toContain('--max-hops must be a whole number from 1 to 6');
  });

  it('keys: set reads the key from stdin (never argv), test prints the research service’s report (a refusal exits 1), no report in time exits 5, remove', async () => {
    const stdinKey = cli();
    const set = { ...stdinKey.io, prompt: () => Promise.resolve('  sk-openai-from-stdin-0123456789 \n') };
    expect(await runCli(['keys', 'set', 'openai'], set)).toBe(EXIT.succeeded);
    expect(gateway.keys.get('openai')?.apiKey).toBe('sk-openai-from-stdin-0123456789');
    expect(stdinKey.out.join('\n')).not.toContain('sk-openai-from-stdin');
    expect(await runCli(['keys', 'set', 'mistral'], set)).toBe(EXIT.usage);

    const tested = cli();
    gateway.requests.length = 0;
    expect(await runCli(['keys', 'test', 'openai'], tested.io)).toBe(EXIT.failed);
    expect(tested.out.at(-1)).toBe('openai: quota: refused for quota or rate (429): check the account’s credit and limits (openai/model, 0.4 s) — openai: HTTP 429: You exceeded your current quota');
    // One request that waits for the report at the gateway: no polling of the key list.
    expect(gateway.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /research/keys/openai/test?wait=30']);
    const noKey = cli();
    expect(await runCli(['keys', 'test', 'gemini'], noKey.io)).toBe(EXIT.failed);
    expect(noKey.err.join('\n')).toContain('no gemini key stored: openpaw keys set gemini');

    // No report within the wait (the gateway answers 202): exit 5.
    gateway.keyTestsReported = false;
    try {
      const waiting = cli();
      expect(await runCli(['keys', 'test', 'openai', '--json'], waiting.io)).toBe(EXIT.stillRunning);
      expect(JSON.parse(waiting.out.join('\n'))).toMatchObject({ result: { provider: 'openai', lastTest: { outcome: null } } });
    } finally {
      gateway.keyTestsReported = true;
    }

    const pending = cli();
    expect(await runCli(['keys'], pending.io)).toBe(EXIT.succeeded);
    expect(pending.out).toEqual(['openai: stored 2026-11-27T18:00:00.000Z; test pending since 2026-11-27T19:00:00.000Z']);
    expect(await runCli(['keys', 'test', 'openai'], cli().io)).toBe(EXIT.failed);
    const listed = cli();
    expect(await runCli(['keys'], listed.io)).toBe(EXIT.succeeded);
    // Reported since: the list shows it.
    expect(listed.out).toEqual([expect.stringMatching(/^openai: stored 2026-11-27T18:00:00.000Z; quota: refused for quota or rate \(429\)/)]);
    expect(await runCli(['keys', 'remove', 'openai'], cli().io)).toBe(EXIT.succeeded);
    expect(gateway.keys.has('openai')).toBe(false);
  });

  it('research: streams each leg as it changes, answers the gate on stdin, prints the synthesis and the share link; a rejected key and a gate left waiting exit 1 and 5', async () => {
    const runId = '2b3c4d5e-6f70-4a8b-9c0d-1e2f3a4b5c6d';
    const leg = (provider: string, status: string, extra: Record<string, unknown> = {}) => ({
      provider, status, model: null, result: null, truncated: false, local: false, error: null, errorReason: null, round: 1, startedAt: null, completedAt: null, durationMs: null, costUsd: 0, ...extra,
    });
    const done = (provider: string) => leg(provider, 'completed', { model: `${provider}/m`, result: `Report of ${provider}.`, durationMs: 12_300, costUsd: 0.01 });
    const rejected = leg('anthropic', 'failed', { error: 'HTTP 401: invalid x-api-key', errorReason: 'auth' });
    const view = (status: string, legs: Record<string, unknown>[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
      id: runId, status, title: 'Heat pumps in cold climates', titleSource: 'fallback', prompt: 'How efficient are heat pumps in cold climates?', selectedLlms: ['openai', 'anthropic'], synthesisLlm: 'local',
      externalReports: [], llmResults: legs, synthesizedResult: null, synthesisModel: null, synthesisAttributions: [], synthesisSkipped: false, synthesisError: null, partialFailure: null, retryCount: 0,
      shareInfo: null, error: null, errorKind: null, errorReason: null, costUsd: 0, startedAt: null, completedAt: null, ...extra,
    });
    const state = (version: number, v: Record<string, unknown>) => ({ ...runRecord(runId, version, String(v['status']), 1, v), workflowType: 'research', terminal: ['completed', 'failed'].includes(String(v['status'])) });
    const gate = state(3, view('awaiting_confirmation', [done('openai'), rejected], { partialFailure: { failedProviders: ['anthropic'], detectedAt: 'now', retryCount: 0 } }));
    const completed = state(5, view('completed', [done('openai'), rejected], {
      synthesizedResult: '## Where the sources agree\n- Heat pumps work in the cold. [openai][External 1]', synthesisModel: 'local/extractive', synthesisTruncated: true,
      shareInfo: { url: '/v1/shared/tok', expiresAt: '2026-01-08T00:00:00.000Z', blobKey: 'k', contentSha256: 'a'.repeat(64) },
    }));
    gateway.reset({
      submission: { status: 202, body: { run_id: runId } },
      connections: [
        { notFound: true },
        { events: [state(1, view('processing', [leg('openai', 'pending'), leg('anthropic', 'pending')])), state(2, view('processing', [leg('openai', 'processing'), leg('anthropic', 'pending')])), gate], then: 'drop' },
        { events: [state(4, view('synthesizing', [done('openai'), rejected])), completed], then: 'end' },
      ],
      final: completed,
    });
    const answers = ['x', 'p'];
    const proceeding = cli();
    proceeding.io = { ...proceeding.io, prompt: () => Promise.resolve(answers.shift()) };
    expect(await runCli(['research', 'How efficient are heat pumps in cold climates?', '--llm', 'openai,anthropic'], proceeding.io)).toBe(EXIT.succeeded);
    expect(proceeding.out).toEqual(
      expect.arrayContaining([
        `research ${runId}`,
        'processing: Heat pumps in cold climates',
        '  openai: pending',
        '  openai: processing',
        '  openai: completed (openai/m, 12.3 s, $0.0100)',
        '  anthropic: failed — auth: HTTP 401: invalid x-api-key (update your key, then retry)',
        'anthropic failed; openai completed.',
        '## Where the sources agree\n- Heat pumps work in the cold. [openai][External 1]',
        '(The synthesis was cut short: it is not whole.)',
        `Share link (until 2026-01-08T00:00:00.000Z): ${gateway.url}/v1/shared/tok`,
      ]),
    );
    // Each leg's line once per change, never repeated for an unchanged leg.
    expect(proceeding.out.filter((line) => line === '  openai: completed (openai/m, 12.3 s, $0.0100)')).toHaveLength(1);
    expect(proceeding.err).toContain('  "x" is not an answer');
    const posted = gateway.requests.filter((r) => r.method === 'POST').map((r) => [r.path, JSON.parse(r.body.toString()) as unknown]);
    expect(posted).toEqual([
      ['/research', { prompt: 'How efficient are heat pumps in cold climates?', selectedLlms: ['openai', 'anthropic'] }],
      [`/research/${runId}/confirm`, { action: 'proceed' }],
    ]);
    expect(gateway.requests.filter((r) => r.path.endsWith('/events')).map((r) => r.headers['last-event-id'])).toEqual([undefined, undefined, '3']);

    // Every key rejected: the run fails, saying what to do.
    const failed = state(2, view('failed', [leg('openai', 'failed', { error: 'HTTP 401', errorReason: 'auth' })], { errorKind: 'all_failed', errorReason: 'auth', error: 'All LLM calls failed: openai rejected the API key — update your key, then retry' }));
    gateway.reset({ submission: { status: 202, body: { run_id: runId } }, connections: [{ events: [failed], then: 'end' }], final: failed });
    const refused = cli();
    expect(await runCli(['research', '--resume', runId], refused.io)).toBe(EXIT.failed);
    expect(refused.err).toContain('the research failed: All LLM calls failed: openai rejected the API key — update your key, then retry');
    expect(refused.err).toContain(`update your key (openpaw keys set openai < openai-key.txt), then retry: openpaw research --retry ${runId}`);

    // --retry: the gateway's retry, then the run followed past the failed state it reopens (version 2).
    const retried = state(4, view('completed', [done('openai')], { selectedLlms: ['openai'], synthesisSkipped: true, retryCount: 1 }));
    gateway.reset({ submission: { status: 202, body: { run_id: runId } }, connections: [{ events: [failed, state(3, view('retrying', [leg('openai', 'pending')])), retried], then: 'end' }], final: failed });
    const retrying = cli();
    expect(await runCli(['research', '--retry', runId], retrying.io)).toBe(EXIT.succeeded);
    expect(retrying.out).toEqual(expect.arrayContaining(['retrying research ' + runId, 'retrying: Heat pumps in cold climates', 'Report of openai.']));
    expect(retrying.err).toEqual([]);
    expect(gateway.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /runs/${runId}`, `POST /research/${runId}/retry`, `GET /runs/${runId}/events`]);
    // No retry left: the gateway's refusal, exit 1, and no retry offered after the failure.
    const spent = state(2, view('failed', [leg('openai', 'failed', { errorReason: 'server_error' })], { errorKind: 'max_retries', error: 'max retries', retryCount: 2 }));
    gateway.reset({ submission: { status: 202, body: { run_id: runId } }, connections: [{ events: [spent], then: 'end' }], final: spent });
    const exhausted = cli();
    expect(await runCli(['research', '--retry', runId], exhausted.io)).toBe(EXIT.failed);
    expect(await runCli(['research', '--resume', runId], exhausted.io)).toBe(EXIT.failed);
    expect(exhausted.err).toEqual(['retry refused (max_retries): max retries (2) reached: create a new research', 'the research failed: max retries']);

    // One report, no synthesis: the report itself, and no share page.
    const single = state(2, view('completed', [done('openai')], { selectedLlms: ['openai'], synthesisSkipped: true }));
    gateway.reset({ submission: { status: 202, body: { run_id: runId } }, connections: [{ events: [single], then: 'end' }], final: single });
    const alone = cli();
    expect(await runCli(['research', '--resume', runId, '--json'], alone.io)).toBe(EXIT.succeeded);
    expect(alone.err).toEqual(expect.arrayContaining(['Report by openai:', 'Report of openai.', 'No share page: a research without a synthesis publishes none (the report is above).']));
    expect(JSON.parse(alone.out.join('\n'))).toMatchObject({ command: 'research', exitCode: 0, result: { id: runId, status: 'completed' } });

    // The gate left for later (end of input): exit 5, with the way back.
    gateway.reset({ submission: { status: 202, body: { run_id: runId } }, connections: [{ events: [gate], then: 'end' }], final: gate });
    const leaving = cli();
    expect(await runCli(['research', '--resume', runId], leaving.io)).toBe(EXIT.stillRunning);
    expect(leaving.out).toContain(`the research waits for your answer; decide later with: openpaw research --resume ${runId}`);

    const usage = cli();
    expect(await runCli(['research'], usage.io)).toBe(EXIT.usage);
    expect(await runCli(['research', 'q', '--llm', 'openai,mistral'], usage.io)).toBe(EXIT.usage);
    expect(await runCli(['research', 'q', '--retry', runId], usage.io)).toBe(EXIT.usage);
    expect(usage.err.join('\n')).toContain('--llm takes openai, anthropic, gemini, local (comma-separated), not mistral');
  });
});
