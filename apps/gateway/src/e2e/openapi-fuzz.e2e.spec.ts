import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freshDatabase, type NatsServerHandle, privateNatsServer, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import { fuzzOpenApi, type OpenApiDocument } from '@openpaw/testkit';
import { signAccessToken } from '../auth/tokens.js';

const root = join(import.meta.dirname, '../../../..');
const openapi = JSON.parse(readFileSync(join(root, 'apps/gateway/openapi.json'), 'utf8')) as OpenApiDocument;

/**
 * Every operation of the gateway's OpenAPI, called with generated and mutated JSON bodies, path
 * parameters and queries (issue 26; `fuzzOpenApi` of `@openpaw/testkit`): no answer is a 5xx; every
 * 400 names what it refuses; every accepted start of a run shows the run; text PostgreSQL cannot hold
 * (NUL, a lone surrogate) in any parameter or body field is refused by a 4xx naming it. Coordinator and gateway
 * run as processes, so an accepted start goes all the way to the projection (the NUL in a research
 * title was accepted, retried 10 times by the coordinator and never seen). Short here (CI); the
 * bench `bench/fuzz/openapi-fuzz.ts` runs it long.
 */
describe('fuzzing every operation of the OpenAPI (gateway + coordinator processes)', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let token: string;

  beforeAll(async () => {
    nats = await privateNatsServer();
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_openapi_fuzz'),
      // Artifacts answers the synchronous chat; the others' runs only need to become visible.
      services: ['coordinator', 'artifacts', 'gateway'],
      env: { OPENPAW_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      serviceEnv: { gateway: { OPENPAW_ADMISSION_JSON: JSON.stringify({ tiers: { free: { ratePerSecond: 1_000, burst: 1_000, maxInFlight: 1_000 } } }) } },
    });
    token = await signAccessToken({ secret: platform.jwtSecret, issuer: 'openpaw', audience: 'openpaw-api' }, 'fuzz-user');
  });

  afterAll(async () => {
    await platform?.stop();
    await nats?.dispose();
  });

  it('answers no 5xx, names what a 400 refuses, and shows every run it accepted', async () => {
    // Small in CI (the hostile-text sweep is exhaustive; the generated part samples), long in the bench.
    const report = await fuzzOpenApi({ openapi, gatewayUrl: platform.gatewayUrl, token, requestsPerOperation: 6, requestsPerStart: 20, visibleWithinMs: 30_000, seed: 2026 });
    console.log(
      `OpenAPI fuzz: ${report.requests} requests (${report.hostileTextRequests} of the hostile-text sweep) over ${report.operations} operations in ${(report.durationMs / 1000).toFixed(1)} s, ` +
        `${report.runsStarted} runs started (${JSON.stringify(report.starts)}), mutated bodies with a broken field ${JSON.stringify(report.brokenFields)}, ${report.failures.length} failures`,
    );
    expect(report.failures).toEqual([]);
    // Each start operation both accepts (from its documented examples) and refuses (mutated bodies).
    expect(Object.keys(report.starts).sort()).toEqual(['POST /paper-searches', 'POST /problems', 'POST /research', 'POST /visual-degrees']);
    for (const [operation, tally] of Object.entries(report.starts)) {
      expect({ operation, accepted: tally.accepted > 0, refused: tally.refused > 0 }).toEqual({ operation, accepted: true, refused: true });
    }
    // A mutation that broke one field (or the body as a whole) is refused naming that field, not just any field:
    // the failures above hold none that names another; here, that this was checked on a good share of requests.
    expect(report.brokenFields.named).toBeGreaterThan(report.brokenFields.sent / 2);
    expect(report.brokenFields.sent).toBeGreaterThan(40);
    expect(report.runsStarted).toBe(Object.values(report.starts).reduce((sum, tally) => sum + tally.accepted, 0));
    // NUL in every path and query parameter, NUL or a lone surrogate in every string of every documented body and in every
    // string field of a body schema no example holds (nested ones included), NUL in every text part of a multipart body:
    // sent, and refused (no failures above). 203 on the OpenAPI of this writing (182 before the schema and multipart fields).
    expect(report.hostileTextRequests).toBeGreaterThan(195);
    // ~60-80 s on a loaded 2-core machine (load 16-20); the bound leaves room without hiding a hang.
  }, 300_000);
});
