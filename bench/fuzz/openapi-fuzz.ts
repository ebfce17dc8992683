/**
 * The OpenAPI fuzz (issue 26), long: every operation of the gateway's OpenAPI called with generated and
 * mutated bodies, path parameters and queries, against the gateway, coordinator and artifacts services as
 * processes from the build (local nats-server and PostgreSQL). Fails (exit 1) on any 5xx, any 400 that
 * names no field, any accepted start whose run is not visible within the bound. The CI spec
 * (`apps/gateway/src/e2e/openapi-fuzz.e2e.spec.ts`) runs the same check short; this one runs many seeds.
 *
 *   npm run build && node dist/bench/fuzz/openapi-fuzz.js [--per-operation 200] [--per-start 500] [--seeds 2026,7,11] [--visible-within-ms 60000]
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDatabase, startNatsServer, startPlatformProcesses, startPostgresServer } from '@openpaw/testing';
import { fuzzOpenApi, type OpenApiDocument } from '@openpaw/testkit';
import { SignJWT } from 'jose';

const argText = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const arg = (name: string, fallback: number): number => {
  const value = Number(argText(name) ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name}: a positive whole number, not "${argText(name)}"`);
  return value;
};

async function main(): Promise<void> {
  const root = join(import.meta.dirname, '../../..');
  const perOperation = arg('per-operation', 200);
  const perStart = arg('per-start', 500);
  const visibleWithinMs = arg('visible-within-ms', 60_000);
  const seeds = (argText('seeds') ?? '2026,7,11').split(',').map(Number);
  if (seeds.some((seed) => !Number.isInteger(seed))) throw new Error(`--seeds: whole numbers separated by commas, not "${argText('seeds')}"`);
  const openapi = JSON.parse(readFileSync(join(root, 'apps/gateway/openapi.json'), 'utf8')) as OpenApiDocument;

  const nats = await startNatsServer();
  const postgres = await startPostgresServer({ fsync: true });
  const platform = await startPlatformProcesses({
    root,
    natsUrl: nats.url,
    databaseUrl: await createDatabase(postgres.adminUrl, 'openapi_fuzz_bench'),
    services: ['coordinator', 'artifacts', 'gateway'],
    env: { OPENPAW_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'warn' },
    // The fuzz checks answers, not admission: its user is not rate-limited.
    serviceEnv: { gateway: { OPENPAW_ADMISSION_JSON: JSON.stringify({ tiers: { free: { ratePerSecond: 10_000, burst: 10_000, maxInFlight: 100_000 } } }) } },
  });
  let failed = 0;
  try {
    for (const seed of seeds) {
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(`fuzz-bench-${seed}`)
        .setIssuer('openpaw')
        .setAudience('openpaw-api')
        .setIssuedAt()
        .setExpirationTime('4h')
        .sign(new TextEncoder().encode(platform.jwtSecret));
      const report = await fuzzOpenApi({ openapi, gatewayUrl: platform.gatewayUrl, token, requestsPerOperation: perOperation, requestsPerStart: perStart, visibleWithinMs, seed });
      const statuses = Object.entries(report.statuses)
        .sort()
        .map(([status, count]) => `${status} ${count}`)
        .join(', ');
      console.log(
        `seed ${seed}: ${report.requests} requests over ${report.operations} operations in ${(report.durationMs / 1000).toFixed(1)} s ` +
          `(${((report.requests * 1000) / report.durationMs).toFixed(0)}/s; ${statuses}), ${report.runsStarted} runs started, ${report.failures.length} failures`,
      );
      for (const [operation, tally] of Object.entries(report.starts)) {
        const refusals = Object.entries(tally.refusals)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 6)
          .map(([reason, count]) => `${reason} ×${count}`)
          .join(', ');
        console.log(`  ${operation}: ${tally.accepted} accepted, ${tally.refused} refused${refusals === '' ? '' : ` (${refusals})`}`);
      }
      const { sent, named, otherwise } = report.brokenFields;
      console.log(`  mutated bodies with a broken field: ${sent}, refused naming it ${named}, otherwise ${JSON.stringify(otherwise)}`);
      for (const failure of report.failures.slice(0, 20)) console.log(`  ${failure}`);
      failed += report.failures.length;
    }
  } finally {
    await platform.stop();
    await nats.dispose();
    await postgres.dispose();
  }
  if (failed > 0) {
    console.log(`OpenAPI fuzz: ${failed} failures`);
    process.exitCode = 1;
  }
}

await main();
