import { join } from 'node:path';
// The test picks its pinned pairs from the local world's generator (the gateway itself never reads it).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { generateVisualWorld, pairsAtDistance } from '@openpaw/providers';
import {
  freshDatabase,
  type ManagedProcess,
  privateNatsServer,
  type NatsServerHandle,
  type RunningPlatform,
  spawnManaged,
  startPlatformProcesses,
  waitFor,
  waitForOutput,
} from '@openpaw/testing';
import { GatewayClient } from './e2e-client.js';
import { cliEnvironment, runCli, startCli } from './testing/openpaw-cli.js';
import { readSse, type SseEvent } from './sse-reader.js';

const root = join(import.meta.dirname, '../../../..');
/** A run's redacted name (what the view shows of a person taken down). */
const REMOVED = '[removed]';
/** The takedown test's pair (an index into the seed-7 world's 3-hop pairs) and how many searches it answers before one is held. */
const HELD_PAIR_INDEX = 0;
const SEARCHES_BEFORE_HOLD = 4;

interface DemoPairs {
  readonly threeHop: { readonly from: string; readonly to: string };
  readonly noPath: { readonly from: string; readonly to: string };
}

/** The local world's demo pairs, as the visual-search service announces them at start. */
function demoPairsFrom(logs: string): DemoPairs | undefined {
  for (const line of logs.split('\n')) {
    if (!line.includes('localWorldDemo')) continue;
    return (JSON.parse(line) as { localWorldDemo: DemoPairs }).localWorldDemo;
  }
  return undefined;
}

const dataOf = (events: readonly SseEvent[], type: string) => events.filter((e) => e.event === type).map((e) => JSON.parse(e.data) as Record<string, unknown>);
/** The evidence cards of verified links (an `evidence` event marked `partial` is spec 03 S1's partial evidence, not a link). */
const cardsOf = (events: readonly SseEvent[]) => dataOf(events, 'evidence').filter((card) => card['partial'] !== true);

describe('visual degrees (spec 03) end to end through the gateway, over the local world', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let alice: GatewayClient;
  let pairs: DemoPairs;

  beforeAll(async () => {
    nats = await privateNatsServer();
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_visual'),
      services: ['coordinator', 'visual-search', 'gateway'],
      serviceEnv: { 'visual-search': { LOG_LEVEL: 'info', OPENPAW_VISUAL_WORLD_SEED: '7' } },
    });
    alice = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'alice');
    pairs = await waitFor(() => demoPairsFrom(platform.logs('visual-search')), 'the local world demo pairs in the visual-search log');
  });

  afterAll(async () => {
    await platform.stop();
    await nats.dispose();
  });

  const start = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await alice.request('/visual-degrees', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { runId: string } };
  };

  it('refuses bad input with 400 naming the field', async () => {
    const missing = await start({ from: 'Ada Stone' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'validation_failed', location: 'body', issues: [expect.objectContaining({ path: 'to' })] });
    const hops = await start({ from: 'A', to: 'B', options: { maxHops: 9 } });
    expect(hops.status).toBe(400);
    expect(hops.body['issues']).toEqual([expect.objectContaining({ path: 'options.maxHops' })]);
    const documented = (await (await fetch(`${platform.gatewayUrl}/docs/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(documented.paths)).toEqual(expect.arrayContaining(['/visual-degrees', '/visual-degrees/{id}', '/visual-degrees/{id}/events', '/visual-degrees/{id}/cancel']));
  });

  it('finds most of a pinned set of 3-hop pairs, each close to 3 hops (this test\'s floor; bench/visual has the figures)', async () => {
    // Eight of the world's 46 pairs at distance 3, fixed by index; the test reads the world to pick
    // them, the product never does (it sees only search and recognition).
    const world = generateVisualWorld({ seed: 7 });
    const pinned = pairsAtDistance(world, 3)
      .filter((_, index) => index % 6 === 0)
      .map(([a, b]) => ({ from: world.people[a]?.name ?? '', to: world.people[b]?.name ?? '' }));
    expect(pinned).toHaveLength(8);
    const hops = await Promise.all(
      pinned.map(async (pair, index) => {
        const started = await start(pair, { 'idempotency-key': `pinned-${index}` });
        expect(started.status).toBe(202);
        const events = await readSse(`${platform.gatewayUrl}/visual-degrees/${started.body.runId}/events`, alice, { timeoutMs: 90_000 });
        const [final] = dataOf(events, 'final') as [{ path: string[] } | undefined];
        return final === undefined ? undefined : final.path.length - 1;
      }),
    );
    const found = hops.filter((h): h is number => h !== undefined);
    expect(found.length).toBeGreaterThanOrEqual(7);
    expect(Math.max(...found)).toBeLessThanOrEqual(6);
    // Measured 8 of 8 at 3.875 hops on average (deterministic world and ranking): the floor keeps that.
    expect(found.reduce((a, b) => a + b, 0) / found.length).toBeLessThanOrEqual(4);
  });

  it('finds a 3-hop chain with evidence on the SSE stream, and resumes after Last-Event-ID', async () => {
    const started = await start(pairs.threeHop, { 'idempotency-key': 'three-hop-1' });
    expect(started.status).toBe(202);
    const runId = started.body.runId;
    const events = await readSse(`${platform.gatewayUrl}/visual-degrees/${runId}/events`, alice, { timeoutMs: 60_000 });
    const types = events.map((e) => e.event);
    expect(types[0]).toBe('status');
    expect(types.at(-1)).toBe('final');
    const evidence = cardsOf(events);
    // The direct attempt's photos of one side only, if any, are one partial evidence event about A and B (spec 03 S1).
    for (const seen of dataOf(events, 'evidence').filter((card) => card['partial'] === true)) expect(seen).toMatchObject({ from: pairs.threeHop.from, to: pairs.threeHop.to, images: expect.any(Number) });
    // The pair is 3 hops apart at best; a search may find a longer chain, never over 6.
    expect(evidence.length).toBeGreaterThanOrEqual(3);
    for (const card of evidence) {
      expect(card).toMatchObject({ imageUrl: expect.stringMatching(/^local-world:/), confidenceFrom: expect.any(Number), confidenceTo: expect.any(Number) });
      expect(Math.min(card['confidenceFrom'] as number, card['confidenceTo'] as number)).toBeGreaterThanOrEqual(80);
    }
    const [final] = dataOf(events, 'final') as [{ path: string[]; confidenceMap: { bottleneck: number; cumulative: number } }];
    // Each card's picture is a thumbnail the service stored from the photo it fetched, linked for the run's
    // owner only by a short-lived URL signed for that thumbnail and that user: no bearer token, no link without a signature.
    const thumbnail = evidence[0]?.['thumbnail'];
    expect(thumbnail).toMatch(/^[0-9a-f]{16}$/);
    const link = await alice.request(`/visual-degrees/${runId}/evidence/${String(thumbnail)}`);
    expect(link.status).toBe(200);
    const { url: signedUrl, expiresAt } = (await link.json()) as { url: string; expiresAt: string };
    expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(300_000);
    // The URL works for its holder only: the HttpOnly, SameSite=Strict cookie set with it (a browser sends it with the console's <img>).
    const setCookie = link.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^openpaw_share_holder=[\w-]+; Path=\/v1\/shared; Max-Age=300; HttpOnly; SameSite=Strict/);
    const holder = { headers: { cookie: String(setCookie.split(';')[0]) } };
    const replayed = await fetch(signedUrl);
    expect(replayed.status).toBe(403);
    expect(await replayed.json()).toMatchObject({ error: 'share_link_not_holder', message: expect.stringContaining('holder cookie') });
    const picture = await fetch(signedUrl, holder);
    expect(picture.status).toBe(200);
    expect(picture.headers.get('content-type')).toBe('image/jpeg');
    expect([...new Uint8Array(await picture.arrayBuffer()).subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const [payload, signature] = String(signedUrl.split('/').at(-1)).split('.') as [string, string];
    const rescoped = Buffer.from(JSON.stringify({ ...(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as object), s: 'user:bob' })).toString('base64url');
    const tampered = await fetch(signedUrl.replace(`${payload}.${signature}`, `${rescoped}.${signature}`), holder);
    expect(tampered.status).toBe(403);
    expect(await tampered.json()).toMatchObject({ error: 'share_link_tampered' });
    const bob = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'bob');
    const bobsLink = await bob.request(`/visual-degrees/${runId}/evidence/${String(thumbnail)}`);
    expect(bobsLink.status).toBe(404);
    expect(bobsLink.headers.get('set-cookie')).toBeNull();
    expect((await alice.request(`/visual-degrees/${runId}/evidence/0123456789abcdef`)).status).toBe(404);
    expect((await alice.request(`/visual-degrees/${runId}/evidence/not-a-thumbnail`)).status).toBe(400);
    expect(final.path.length - 1).toBeGreaterThanOrEqual(3);
    expect(final.path.length - 1).toBeLessThanOrEqual(6);
    expect(final.path[0]).toBe(pairs.threeHop.from);
    expect(final.path.at(-1)).toBe(pairs.threeHop.to);
    // Meet in the middle (the default) verifies B's side from B, so cards arrive in discovery order and a
    // B-side card names its edge from the far end. Every edge of the path has its card; a card off the
    // path is an edge of B's chain that a meeting nearer B cut away (a path_update showed it leave).
    const undirected = (a: unknown, b: unknown): string => [String(a), String(b)].sort().join(' ~ ');
    const pathEdges = final.path.slice(1).map((to, i) => undirected(final.path[i], to));
    const cards = new Map(evidence.map((card) => [undirected(card['from'], card['to']), card['edgeConf'] as number]));
    expect([...cards.keys()]).toEqual(expect.arrayContaining(pathEdges));
    expect(final.confidenceMap.bottleneck).toBe(Math.min(...pathEdges.map((e) => cards.get(e) ?? Number.NaN)));
    // Ids are the run's own sequence: resuming after the second event replays the rest, nothing else.
    const resumed = await readSse(`${platform.gatewayUrl}/visual-degrees/${runId}/events`, alice, { timeoutMs: 10_000, lastEventId: '2' });
    expect(resumed.map((e) => e.id)).toEqual(events.slice(2).map((e) => e.id));

    const run = (await (await alice.request(`/visual-degrees/${runId}`)).json()) as { state: string; view: { path: string[]; used: Record<string, number> } };
    expect(run.state).toBe('SUCCEEDED');
    expect(run.view.path).toEqual(final.path);
    expect(run.view.used['searchCalls']).toBeGreaterThan(0);
    // The same key is the same run.
    expect((await start(pairs.threeHop, { 'idempotency-key': 'three-hop-1' })).body).toMatchObject({ runId, state: 'SUCCEEDED', terminal: true });
  });

  it('the CLI (`openpaw degrees`) prints each evidence card as the run verifies it, before the run ends, then the chain (exit 0); an unknown name exits 1', async () => {
    const env = cliEnvironment(platform.gatewayUrl, platform.jwtSecret, 'alice');
    const cli = startCli(root, ['degrees', pairs.threeHop.from, pairs.threeHop.to], env);
    const firstCard = await cli.line(/^✓ /);
    const done = await cli.exited;
    expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: '' });
    const runId = /^run ([0-9a-f-]{36}): /m.exec(done.stdout)?.[1] ?? '';
    const events = await readSse(`${platform.gatewayUrl}/visual-degrees/${runId}/events`, alice, { timeoutMs: 10_000 });
    const [final] = dataOf(events, 'final') as [{ path: string[]; at: string }];
    // Live: the first card reached the terminal before the run had found its chain (the saga stamps each event).
    expect(firstCard.at).toBeLessThan(Date.parse(final.at));
    // Every card the stream carried, one line each, with its image; then the chain.
    const evidence = cardsOf(events);
    const cards = cli.lines().filter((line) => line.text.startsWith('✓ '));
    expect(cards.map((line) => line.text.split('  ')[0])).toEqual(evidence.map((card) => `✓ ${String(card['from'])} — ${String(card['to'])}`));
    for (const card of evidence) expect(done.stdout).toContain(`    ${String(card['imageUrl'])}`);
    expect(done.stdout).toContain(`Found ${final.path.length - 1} degree(s) in the local demo world of `);
    expect(done.stdout).toContain(final.path.join(' → '));
    // Each card says which world it came from; the end says what the run spent of its budgets.
    expect(done.stdout).toMatch(/^ {4}local-world:/m);
    expect(done.stdout).toMatch(/^ {2}spent \d+\/20 searches, \d+\/120 recognitions, \d+\/8 LLM calls$/m);

    const unknown = await runCli(root, ['degrees', pairs.threeHop.from, 'Taylor Swift', '--json'], env);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ version: 1, command: 'degrees', exitCode: 1, result: { outcome: 'no_path', no_path: { reason: 'unknown_person' } } });
    expect(unknown.stderr).toContain('No path: ');
  });

  it('answers no_path honestly when the persons are not connected', async () => {
    const started = await start({ ...pairs.noPath, options: { maxHops: 3 } });
    const events = await readSse(`${platform.gatewayUrl}/visual-degrees/${started.body.runId}/events`, alice, { timeoutMs: 60_000 });
    expect(events.at(-1)?.event).toBe('no_path');
    expect(dataOf(events, 'final')).toEqual([]);
    const [noPath] = dataOf(events, 'no_path');
    expect(noPath).toMatchObject({ message: expect.stringContaining('No verified visual connection found'), reason: expect.stringMatching(/hop_limit_reached|no_candidates|budget_exhausted/) });
    // It says where it looked: the local world, its size read from the world itself.
    const people = generateVisualWorld({ seed: 7 }).people.length;
    expect(noPath?.['message']).toContain(`in the local demo world of ${people} invented people`);
    expect(noPath?.['world']).toEqual({ kind: 'local_demo', seed: 7, people, description: `local demo world of ${people} invented people` });
    expect((await alice.request(`/visual-degrees/${started.body.runId}`)).status).toBe(200);
    // Another user sees nothing of it.
    const bob = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'bob');
    expect((await bob.request(`/visual-degrees/${started.body.runId}`)).status).toBe(404);
  });

  it('answers a name the local world does not know with the names it knows', async () => {
    const started = await start({ from: pairs.threeHop.from, to: 'Taylor Swift' });
    const events = await readSse(`${platform.gatewayUrl}/visual-degrees/${started.body.runId}/events`, alice, { timeoutMs: 60_000 });
    const [noPath] = dataOf(events, 'no_path');
    const known = generateVisualWorld({ seed: 7 }).people.map((p) => p.name);
    expect(noPath).toMatchObject({ reason: 'unknown_person', unknownNames: ['Taylor Swift'], message: expect.stringContaining('"Taylor Swift" is not in the local demo world') });
    expect([...(noPath?.['knownNames'] as string[])].sort()).toEqual([...known].sort());
    expect((noPath?.['used'] as { searchCalls: number }).searchCalls).toBe(0);
  });

  it('survives kill -9 of visual-search mid-run: the step is re-sent to the restarted service and the chain is found', async () => {
    const started = await start(pairs.threeHop, { 'idempotency-key': 'three-hop-crash' });
    const runId = started.body.runId;
    await alice.untilState(runId, ['DISCOVERING', 'SELECTING', 'VERIFYING', 'BRIDGING']);
    await platform.kill('visual-search');
    // The crash happened mid-run (else this test would prove nothing).
    expect((await alice.run(runId)).terminal).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await platform.start('visual-search');
    const run = await alice.untilTerminal(runId, 90_000);
    expect(run.state).toBe('SUCCEEDED');
    expect((run.view['path'] as string[]).at(-1)).toBe(pairs.threeHop.to);
    // Every command was answered once: nothing the crash lost stays unanswered, nothing is dead-lettered.
    expect(run.view['failure']).toBeUndefined();
  });

  it('cancels a running search: with visual-search down, the run waits in S1 until cancelled', async () => {
    await platform.kill('visual-search');
    try {
      const started = await start(pairs.noPath);
      await alice.untilState(started.body.runId, ['DIRECT_EDGE']);
      const cancelled = await alice.request(`/visual-degrees/${started.body.runId}/cancel`, { method: 'POST' });
      expect(cancelled.status).toBe(202);
      expect(await alice.untilTerminal(started.body.runId)).toMatchObject({ state: 'CANCELLED' });
      const events = await readSse(`${platform.gatewayUrl}/visual-degrees/${started.body.runId}/events`, alice, { timeoutMs: 30_000 });
      expect(events.at(-1)?.event).toBe('cancelled');
      // Ended: a second cancel is refused.
      expect((await alice.request(`/visual-degrees/${started.body.runId}/cancel`, { method: 'POST' })).status).toBe(409);
    } finally {
      await platform.start('visual-search');
    }
  });
  it('cancels a running search from the CLI: `openpaw cancel` stops it, the following `openpaw degrees` exits 4, status says CANCELLED, a second cancel exits 1', async () => {
    const env = cliEnvironment(platform.gatewayUrl, platform.jwtSecret, 'alice');
    await platform.kill('visual-search');
    try {
      // With visual-search down the run waits in its first search step, for as long as the test needs.
      const following = startCli(root, ['degrees', pairs.noPath.from, pairs.noPath.to], env);
      const started = await following.line(/^run [0-9a-f-]{36}: /);
      const runId = /^run ([0-9a-f-]{36}):/.exec(started.text)?.[1] ?? '';
      await alice.untilState(runId, ['DIRECT_EDGE']);

      const cancel = await runCli(root, ['cancel', runId, '--reason', 'changed my mind'], env);
      expect(cancel).toMatchObject({ code: 0, stderr: '', stdout: expect.stringMatching(new RegExp(`^(cancelled: run ${runId} is CANCELLED|cancel requested; run ${runId} is still \\w+)$`, 'm')) });
      expect(await alice.untilTerminal(runId)).toMatchObject({ state: 'CANCELLED' });
      // The CLI that followed the run's evidence stream saw it end cancelled.
      expect(await following.exited).toMatchObject({ code: 4, stderr: '' });

      const status = await runCli(root, ['status', runId, '--json'], env);
      expect(status.code).toBe(4);
      expect(JSON.parse(status.stdout)).toMatchObject({ command: 'status', exitCode: 4, result: { runId, state: 'CANCELLED', terminal: true } });
      expect(await runCli(root, ['cancel', runId], env)).toMatchObject({ code: 1, stderr: expect.stringContaining('cancel refused') });
    } finally {
      await platform.start('visual-search');
    }
  });

  it('takes a person down through the operations route (admin only): their pictures answer 404 and no run finds them again', async () => {
    const operator = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'operator-olga', { roles: ['admin'] });
    const takeDown = async (client: GatewayClient, body: unknown) => {
      const response = await client.request('/ops/visual-degrees/takedowns', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    // The chain found earlier (same key, same run): its middle person is the one taken down.
    const { runId } = (await start(pairs.threeHop, { 'idempotency-key': 'three-hop-1' })).body;
    const events = await readSse(`${platform.gatewayUrl}/visual-degrees/${runId}/events`, alice, { timeoutMs: 60_000 });
    const [final] = dataOf(events, 'final') as [{ path: string[] }];
    const gone = generateVisualWorld({ seed: 7 }).people.find((person) => person.name === final.path[1]);
    expect(gone).toBeDefined();
    const showing = cardsOf(events).filter((card) => card['from'] === gone?.name || card['to'] === gone?.name);
    const pictured = [...new Set(showing.map((card) => card['thumbnail']).filter((thumbnail) => typeof thumbnail === 'string'))];
    expect(pictured.length).toBeGreaterThan(0);
    const signedUrls: { url: string; cookie: string }[] = [];
    for (const thumbnail of pictured) {
      const link = await alice.request(`/visual-degrees/${runId}/evidence/${thumbnail}`);
      expect(link.status).toBe(200);
      signedUrls.push({ url: ((await link.json()) as { url: string }).url, cookie: String(link.headers.get('set-cookie')?.split(';')[0]) });
    }
    // Before the takedown, each URL shows its picture to its holder.
    for (const signed of signedUrls) expect((await fetch(signed.url, { headers: { cookie: signed.cookie } })).status).toBe(200);

    const request = { celebrityId: gone?.celebrityId, name: gone?.name, reason: 'the person asked to be removed' };
    expect((await takeDown(alice, request)).status).toBe(403);
    const noReason = await takeDown(operator, { celebrityId: gone?.celebrityId });
    expect(noReason).toMatchObject({ status: 400, body: { error: 'validation_failed', issues: [expect.objectContaining({ path: 'reason' })] } });
    const blankId = await takeDown(operator, { ...request, celebrityId: ' ' });
    expect(blankId).toMatchObject({ status: 400, body: { issues: [expect.objectContaining({ path: 'celebrityId' })] } });
    expect((await takeDown(operator, { ...request, requestedBy: 'someone-else' })).status).toBe(400);

    const done = await takeDown(operator, request);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ recognizer: expect.any(String), celebrityId: gone?.celebrityId, at: expect.any(String) });
    // The run's pictures of them were stored, and its verified pairs with them cached: both are gone now.
    expect(done.body['thumbnailsRemoved']).toBeGreaterThanOrEqual(pictured.length);
    expect(done.body['cacheEntriesRemoved']).toBeGreaterThan(0);
    for (const thumbnail of pictured) expect((await alice.request(`/visual-degrees/${runId}/evidence/${thumbnail}`)).status).toBe(404);
    // A URL signed before the takedown no longer shows the picture either.
    for (const signed of signedUrls) expect((await fetch(signed.url, { headers: { cookie: signed.cookie } })).status).toBe(404);
    const audit = (await (await operator.request('/ops/audit?limit=5')).json()) as { entries: { actor: string; action: string; target: Record<string, unknown> }[] };
    expect(audit.entries[0]).toMatchObject({ actor: 'operator-olga', action: 'visual_takedown', target: { celebrityId: gone?.celebrityId, reason: request.reason } });

    // The finished run that named them is redacted (an amendment: its state kept), its view no longer names them.
    const deadline = Date.now() + 30_000;
    let redacted: { state: string; view: unknown } | undefined;
    while (Date.now() < deadline) {
      const run = (await (await alice.request(`/visual-degrees/${runId}`)).json()) as { state: string; view: unknown };
      if (!JSON.stringify(run.view).includes(gone?.name ?? '')) {
        redacted = run;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(redacted?.state).toBe('SUCCEEDED');
    expect(JSON.stringify(redacted?.view)).toContain('[removed]');

    // Its event stream replays the redacted events, whether opened afresh or resumed after Last-Event-ID:
    // the same ids, neither their name nor the addresses of the photos that showed them.
    const removedUrls = [...new Set(showing.flatMap((card) => [card['imageUrl'], card['sourcePageUrl']]).filter((url): url is string => typeof url === 'string'))];
    expect(removedUrls.length).toBeGreaterThan(0);
    const replayed = await readSse(`${platform.gatewayUrl}/visual-degrees/${runId}/events`, alice, { timeoutMs: 10_000 });
    const resumed = await readSse(`${platform.gatewayUrl}/visual-degrees/${runId}/events`, alice, { timeoutMs: 10_000, lastEventId: '2' });
    expect(replayed.map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(resumed.map((e) => e.id)).toEqual(events.slice(2).map((e) => e.id));
    for (const stream of [replayed, resumed]) {
      const text = stream.map((e) => e.data).join('\n');
      expect(text).not.toContain(gone?.name);
      for (const url of removedUrls) expect(text).not.toContain(url);
      for (const thumbnail of pictured) expect(text).not.toContain(String(thumbnail));
      const cards = cardsOf(stream).filter((card) => card['from'] === '[removed]' || card['to'] === '[removed]');
      for (const card of cards) expect(card).toMatchObject({ imageUrl: '[removed]', sourcePageUrl: null, thumbnail: null });
    }
    // Every card that showed them is still there, redacted (the fresh stream holds all of them).
    expect(cardsOf(replayed).filter((card) => card['from'] === '[removed]' || card['to'] === '[removed]')).toHaveLength(showing.length);
    expect((dataOf(replayed, 'final')[0] as { path: string[] }).path).toContain('[removed]');

    // A new search from them finds no chain: no photo is recognised as them any more (the far side still searches).
    const after = await start({ from: gone?.name, to: pairs.threeHop.to });
    const afterEvents = await readSse(`${platform.gatewayUrl}/visual-degrees/${after.body.runId}/events`, alice, { timeoutMs: 90_000 });
    expect(afterEvents.at(-1)?.event).toBe('no_path');
    for (const card of cardsOf(afterEvents)) expect([card['from'], card['to']]).not.toContain(gone?.name);
    // Partial evidence of the direct attempt names whom the user asked for, but no photo is recognised as them.
    for (const seen of dataOf(afterEvents, 'evidence').filter((card) => card['partial'] === true)) expect(seen['confidenceFrom']).toBeNull();
  });
});

describe('visual degrees when run memory expires mid-run (KV TTL 1 s)', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let alice: GatewayClient;
  let pairs: DemoPairs;

  beforeAll(async () => {
    nats = await privateNatsServer();
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_visual_ttl'),
      services: ['coordinator', 'visual-search', 'gateway'],
      serviceEnv: { 'visual-search': { LOG_LEVEL: 'info', OPENPAW_VISUAL_WORLD_SEED: '7', OPENPAW_VISUAL_RUN_TTL_MS: '1000', OPENPAW_VISUAL_EVIDENCE_TTL_MS: '1000', OPENPAW_VISUAL_REFUTATION_TTL_MS: '500' } },
    });
    alice = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'alice');
    pairs = await waitFor(() => demoPairsFrom(platform.logs('visual-search')), 'the local world demo pairs in the visual-search log');
  });

  afterAll(async () => {
    await platform.stop();
    await nats.dispose();
  });

  it('finds the chain from the saga’s own data: the service, restarted after every key expired, redoes the lost work', async () => {
    const response = await alice.request('/visual-degrees', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(pairs.threeHop) });
    const { runId } = (await response.json()) as { runId: string };
    await alice.untilState(runId, ['DISCOVERING', 'SELECTING', 'VERIFYING', 'BRIDGING']);
    await platform.kill('visual-search');
    expect((await alice.run(runId)).terminal).toBe(false);
    // Longer than the TTL: seen queries, recognitions, candidates, path and the reply cache are gone.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await platform.start('visual-search');
    const run = await alice.untilTerminal(runId, 90_000);
    expect(run.state).toBe('SUCCEEDED');
    const path = run.view['path'] as string[];
    expect(path[0]).toBe(pairs.threeHop.from);
    expect(path.at(-1)).toBe(pairs.threeHop.to);
  });
});

describe('visual degrees over the wire: the real SerpApi and Rekognition adapters against servers speaking their formats', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let wire: ManagedProcess;
  let alice: GatewayClient;
  let world: { url: string; demo: DemoPairs };

  beforeAll(async () => {
    // The wire servers run as their own process (the gateway's code may not import the providers).
    wire = spawnManaged(process.execPath, [join(root, 'dist/apps/visual-search/src/testing/wire-world-server.js'), '7']);
    await waitForOutput(wire, 'wireWorld');
    const line = wire.output().split('\n').find((l) => l.includes('wireWorld')) ?? '';
    world = (JSON.parse(line) as { wireWorld: { url: string; demo: DemoPairs } }).wireWorld;
    nats = await privateNatsServer();
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_visual_wire'),
      services: ['coordinator', 'visual-search', 'gateway'],
      serviceEnv: {
        'visual-search': {
          OPENPAW_IMAGE_SEARCH: 'serpapi',
          SERPAPI_API_KEY: 'wire-test-key',
          SERPAPI_BASE_URL: world.url,
          OPENPAW_RECOGNITION: 'rekognition',
          OPENPAW_REKOGNITION_ENDPOINT: world.url,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'AKIDWIRETEST',
          AWS_SECRET_ACCESS_KEY: 'wire-test-secret',
        },
      },
      // The test-only entrypoint: the wire world hosts its images on 127.0.0.1.
      entries: { 'visual-search': 'testing/loopback-main.js' },
    });
    alice = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'alice');
  });

  afterAll(async () => {
    await platform?.stop();
    await nats?.dispose();
    await wire?.stop();
  });

  it('finds the chain with evidence images fetched from the image host and recognised by Rekognition', async () => {
    const response = await alice.request('/visual-degrees', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(world.demo.threeHop) });
    const { runId } = (await response.json()) as { runId: string };
    const events = await readSse(`${platform.gatewayUrl}/visual-degrees/${runId}/events`, alice, { timeoutMs: 90_000 });
    expect(events.at(-1)?.event).toBe('final');
    const evidence = cardsOf(events);
    expect(evidence.length).toBeGreaterThanOrEqual(3);
    for (const card of evidence) expect(card['imageUrl']).toEqual(expect.stringMatching(new RegExp(`^${world.url}/img/`)));
    const [final] = dataOf(events, 'final') as [{ path: string[] }];
    expect([final.path[0], final.path.at(-1)]).toEqual([world.demo.threeHop.from, world.demo.threeHop.to]);
  });

  it('one-sided, refuses a B the celebrity recogniser never recognises (a private person who shares a public figure\'s name), before growing any chain', async () => {
    // The image search finds photos of the public figure the name contains; none shows B as the recogniser knows people.
    const privateB = `${world.demo.threeHop.to} Junior`;
    const body = { from: world.demo.threeHop.from, to: privateB, options: { strategy: 'one_sided' } };
    const response = await alice.request('/visual-degrees', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const { runId } = (await response.json()) as { runId: string };
    const events = await readSse(`${platform.gatewayUrl}/visual-degrees/${runId}/events`, alice, { timeoutMs: 90_000 });
    expect(events.at(-1)?.event).toBe('no_path');
    const [noPath] = dataOf(events, 'no_path');
    expect(noPath).toMatchObject({ reason: 'not_a_public_figure', hopDepth: 0, message: expect.stringContaining(`"${privateB}" was not recognised as a public figure`) });
    // The direct attempt and B's one discovery (it reads the direct attempt's search again): two searches, no chain.
    expect((noPath?.['used'] as { searchCalls: number }).searchCalls).toBe(2);
    expect(cardsOf(events)).toEqual([]);
  });

  it('a takedown while a run waits mid-way cuts the chain before them: the stream and the view say so, the stale step is aborted, and no edge of the answer rests on a photo of them', async () => {
    // A 3-hop pair fixed by index (after the test above, whose run cached its edges: the figures below were measured so).
    const seeded = generateVisualWorld({ seed: 7 });
    const [a, b] = pairsAtDistance(seeded, 3)[HELD_PAIR_INDEX] ?? [0, 0];
    const pair = { from: seeded.people[a]?.name ?? '', to: seeded.people[b]?.name ?? '' };
    const control = (path: string, body?: unknown) => fetch(`${world.url}/control/${path}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });
    const heldSearches = async () => ((await (await control('held')).json()) as { held: { query: string; abandoned: boolean }[] }).held;
    // The wire world answers a few searches, then keeps the next one waiting: the run is caught mid-way,
    // with a chain verified, for as long as the test needs (the product is not told).
    await control('hold', { afterSearches: SEARCHES_BEFORE_HOLD });
    try {
      const runId = ((await (await alice.request('/visual-degrees', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(pair) })).json()) as { runId: string }).runId;
      await waitFor(async () => ((await heldSearches()).length > 0 ? true : undefined), 'a search held by the wire world', 30_000);
      const view = (await alice.run(runId)).view;
      const onChain = [...(view['path'] as string[]), ...((view['reverse_path'] as string[] | undefined) ?? [])].find((name) => name !== pair.from && name !== pair.to);
      // Deterministic world, ranking and budgets: the run has verified someone by then (else this test proves nothing).
      expect(onChain).toBeDefined();
      const gone = seeded.people.findIndex((person) => person.name === onChain);
      const operator = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'operator-olga', { roles: ['admin'] });
      const takedown = await operator.request('/ops/visual-degrees/takedowns', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ celebrityId: seeded.people[gone]?.celebrityId, name: onChain, reason: 'the person asked to be removed' }),
      });
      expect(takedown.status).toBe(200);
      // The running run is told (an amendment) while its search still waits: it says so, and cuts its chain before them.
      const told = await waitFor(
        async () => {
          const run = await alice.run(runId);
          const events = run.view['events'] as { type: string; data: { message?: string } }[];
          return events.some((e) => e.type === 'status' && /taken down/.test(e.data.message ?? '')) ? run : undefined;
        },
        'the run to say a person was taken down',
        30_000,
      );
      expect(told.terminal).toBe(false);
      expect(JSON.stringify([told.view['path'], told.view['reverse_path']])).not.toContain(onChain);
      // It re-planned (a new step): the service stopped the stale step's search, still held, through its
      // AbortSignal — well before the search adapter's own 15 s timeout would have.
      await waitFor(async () => ((await heldSearches())[0]?.abandoned === true ? true : undefined), "the stale step's search aborted by the service", 5_000);
      await control('release', {});

      const run = await alice.untilTerminal(runId, 90_000);
      const events = await readSse(`${platform.gatewayUrl}/visual-degrees/${runId}/events`, alice, { timeoutMs: 10_000 });
      const said = dataOf(events, 'status').map((data) => String(data['message']));
      expect(said).toContain('A person on the chain was taken down; the chain is cut back before them and the search goes on…');
      expect(JSON.stringify(run.view)).not.toContain(onChain);
      // The search went on from what was left and found a chain without them: no edge of it names them or
      // rests on a photo that shows them (a third person pictured too).
      expect(run.state).toBe('SUCCEEDED');
      const [final] = dataOf(events, 'final') as [{ path: string[] }];
      expect([final.path[0], final.path.at(-1)]).toEqual([pair.from, pair.to]);
      expect(final.path).not.toContain(REMOVED);
      const undirected = (x: unknown, y: unknown): string => [String(x), String(y)].sort().join(' ~ ');
      const pathEdges = new Set(final.path.slice(1).map((to, i) => undirected(final.path[i], to)));
      const photoShows = (imageUrl: unknown) => seeded.photos.find((photo) => String(imageUrl).endsWith(`/img/${photo.id}.jpg`))?.faces.map((face) => face.personIndex) ?? [];
      const pathCards = cardsOf(events).filter((card) => pathEdges.has(undirected(card['from'], card['to'])));
      expect(pathCards.length).toBeGreaterThanOrEqual(pathEdges.size);
      for (const card of pathCards) expect(photoShows(card['imageUrl'])).not.toContain(gone);
    } finally {
      await control('release', {});
    }
  });
});
