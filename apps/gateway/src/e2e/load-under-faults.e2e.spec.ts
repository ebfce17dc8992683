import { join } from 'node:path';
import { formatLoadReport, runLoad } from '@openpaw/testkit';

/**
 * The short variant of the load and fault harness (bench/load): 60 distinct new problems at 5/s with
 * video on, while a random service is SIGKILLed every 2 s (and restarted), nats-server is killed once
 * and PostgreSQL stops immediately once. Every accepted run must SUCCEED, with no duplicate asset
 * version; any 429 must carry Retry-After. (Time to result is a benchmark figure, not asserted here.)
 */
const root = process.env['OPENPAW_E2E_ROOT'] ?? join(import.meta.dirname, '../../../..');

describe('flow control under load with faults (short harness run)', () => {
  it('60 new problems at 5/s through kills of services, nats-server and PostgreSQL: every accepted run SUCCEEDED, no duplicates', async () => {
    const report = await runLoad({ root, problems: 60, ratePerSecond: 5, users: 4, faults: true, settleMs: 150_000 });
    console.log(formatLoadReport(report));
    expect(report.failedByReason).toEqual({});
    expect(report.unfinished).toBe(0);
    expect(report.succeeded).toBe(report.submitted - report.rejected429);
    expect(report.rejectedWithoutRetryAfter).toBe(0);
    expect(report.facts.duplicateAssetVersions).toBe(0);
    expect(report.faultsInjected.some((f) => f.startsWith('nats-server'))).toBe(true);
    expect(report.faultsInjected.some((f) => f.startsWith('PostgreSQL'))).toBe(true);
  }, 420_000);
});
