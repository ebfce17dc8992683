/**
 * Load and fault harness (flow control): drives N distinct new problems at R per second from U users
 * through the gateway against the whole platform (every service as its own process from the build,
 * private nats-server and PostgreSQL with fsync on, default policy with video), optionally with faults
 * (a random service SIGKILLed every 2 s and restarted, one nats-server kill, one PostgreSQL immediate
 * stop), then reports SUCCEEDED %, FAILED by reason, 429s, time to result, per-state times, commands
 * stored per step, video backlog drain, duplicate asset versions. Exits 1 on any FAILED or unfinished
 * accepted run, duplicate asset version or 429 without Retry-After.
 *
 *   npm run build && node dist/bench/load/load.js [--problems 300] [--rate 5] [--users 4] [--faults] [--video-drain-s 600] [--json out.json]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatLoadReport, runLoad } from '@openpaw/testkit';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const flag = (name: string): boolean => process.argv.includes(`--${name}`);
const jsonPath = ((i) => (i >= 0 ? process.argv[i + 1] : undefined))(process.argv.indexOf('--json'));

const report = await runLoad({
  root: join(import.meta.dirname, '../../..'),
  problems: arg('problems', 300),
  ratePerSecond: arg('rate', 5),
  users: arg('users', 4),
  faults: flag('faults'),
  settleMs: arg('settle-s', 180) * 1000,
  videoDrainMs: arg('video-drain-s', 600) * 1000,
  log: (line) => console.error(`[load] ${line}`),
});
console.log(formatLoadReport(report));
if (jsonPath !== undefined) writeFileSync(jsonPath, JSON.stringify({ ...report, outcomes: undefined }, null, 2));
const accepted = report.submitted - report.rejected429;
const bad = accepted - report.succeeded + report.facts.duplicateAssetVersions + report.rejectedWithoutRetryAfter;
process.exit(bad > 0 ? 1 : 0);
