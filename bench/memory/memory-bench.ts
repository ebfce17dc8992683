/**
 * Memory per service: the nine services, each as its own process from the build (as the end-to-end
 * tests start them), against local NATS and PostgreSQL; the resident set (RSS, from /proc) of each with its child processes,
 * idle after start and again after load (new problems solved with the instant local model, then the
 * same problems submitted again: the hit path).
 *
 * Targets (issue 23): ≤ 1.5 GB for the nine together when idle; no service that holds no model above
 * 150 MB.
 *
 *   npm run build && node dist/bench/memory/memory-bench.js [--problems 20] [--settle 5] [--root DIR]
 *
 * `--root DIR`: the services of another checkout's build (DIR/dist), e.g. a baseline's, measured by
 * this bench. Services run with that checkout's image Node options (its Dockerfile's `ENV NODE_OPTIONS`)
 * and each container's own Node flags (its docker-compose.yml), as the launcher starts them everywhere.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_SERVICES, createDatabase, imageNodeOptions, type RunningPlatform, serviceNodeFlags, startNatsServer, startPlatformProcesses, startPostgresServer } from '@openpaw/testing';
import { SignJWT } from 'jose';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const MB = 1024 * 1024;

/** Resident set size of a process, in bytes (VmRSS of /proc/<pid>/status). */
function rssOf(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (line?.[1] === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(line[1]) * 1024;
}

/** Each running process's parent, from /proc. */
function parents(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // ended while we looked
    }
  }
  return parentOf;
}

/** A service's resident set with its child processes' (the maths engine's workers are its own processes). */
function rssWithChildren(pid: number, parentOf: ReadonlyMap<number, number>): number {
  let rss = rssOf(pid);
  for (const [child, parent] of parentOf) {
    if (parent !== pid) continue;
    try {
      rss += rssWithChildren(child, parentOf);
    } catch {
      // ended while we looked
    }
  }
  return rss;
}

function rssByService(platform: RunningPlatform): Map<string, number> {
  const rss = new Map<string, number>();
  const parentOf = parents();
  for (const service of ALL_SERVICES) {
    const pid = platform.pidOf(service);
    if (pid === undefined) throw new Error(`${service} is not running`);
    rss.set(service, rssWithChildren(pid, parentOf));
  }
  return rss;
}

async function main(): Promise<void> {
  const problems = arg('problems', 20);
  const settleMs = arg('settle', 5) * 1000;
  const rootFlag = process.argv.indexOf('--root');
  const root = rootFlag >= 0 ? (process.argv[rootFlag + 1] ?? '') : join(import.meta.dirname, '../../..');
  const nats = await startNatsServer();
  const postgres = await startPostgresServer({ fsync: true });
  const databaseUrl = await createDatabase(postgres.adminUrl, 'memory_bench');
  const platform = await startPlatformProcesses({
    root,
    natsUrl: nats.url,
    databaseUrl,
    env: {
      OPENPAW_POLICY_JSON: JSON.stringify({ defaults: { video_generation: 'skip' } }),
      // The load is the bench's own: above the free tier's limits.
      OPENPAW_ADMISSION_JSON: JSON.stringify({ tiers: { free: { ratePerSecond: 1000, burst: 1000, maxInFlight: 1000 } } }),
    },
  }).catch(async (error: unknown) => {
    // A service that will not start leaves no nats-server or PostgreSQL behind (CI48's smoke left both running).
    await Promise.all([nats.dispose(), postgres.dispose()]);
    throw error;
  });
  try {
    await new Promise((r) => setTimeout(r, settleMs));
    const idle = rssByService(platform);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('memory-bench')
      .setIssuer('openpaw')
      .setAudience('openpaw-api')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(platform.jwtSecret));
    const submit = async (text: string): Promise<string | undefined> => {
      const response = await fetch(`${platform.gatewayUrl}/problems?wait=30`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text, intent: 'solve' }),
      });
      if (!response.ok) throw new Error(`POST /problems answered ${response.status}: ${await response.text()}`);
      return ((await response.json()) as { result?: { outcome?: string } }).result?.outcome;
    };
    // New problems (ingest, retrieve, solve, index), then each again (the cached answer).
    for (let round = 0; round < 2; round += 1) {
      for (let i = 0; i < problems; i += 1) {
        const outcome = await submit(`${i + 3}x - ${i} = ${4 * (i + 3) - i}`);
        if (outcome === undefined) throw new Error(`problem ${i} did not end within the wait`);
      }
    }
    await new Promise((r) => setTimeout(r, settleMs));
    const loaded = rssByService(platform);
    const total = (rss: ReadonlyMap<string, number>): number => [...rss.values()].reduce((a, b) => a + b, 0);
    const flags = [...serviceNodeFlags(root)].filter(([, these]) => these.length > 0).map(([app, these]) => `${app} ${these.join(' ')}`);
    console.log(`services run with the image's Node options (${root}/Dockerfile): ${imageNodeOptions(root) || 'none'}; their own Node flags (docker-compose.yml): ${flags.join(', ') || 'none'}`);
    console.log(`${'service'.padEnd(14)} ${'idle MB'.padStart(8)} ${'after load MB'.padStart(14)}`);
    for (const service of ALL_SERVICES) {
      console.log(`${service.padEnd(14)} ${((idle.get(service) ?? 0) / MB).toFixed(0).padStart(8)} ${((loaded.get(service) ?? 0) / MB).toFixed(0).padStart(14)}`);
    }
    console.log(`${'total'.padEnd(14)} ${(total(idle) / MB).toFixed(0).padStart(8)} ${(total(loaded) / MB).toFixed(0).padStart(14)}   (${problems} problems solved, then each submitted again)`);
  } finally {
    await platform.stop();
    await Promise.all([nats.dispose(), postgres.dispose()]);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
