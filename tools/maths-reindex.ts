/**
 * The maths reading sweep (`node dist/tools/maths-reindex.js [--dry-run] [--page-size N]`): judges every
 * live problem indexed under another maths signature version, re-keying it when today's reading of its
 * text is the stored one and withdrawing its stored answer from every retrieval replica when it is not
 * (tools/maths-key-sweep.ts). Needs the retrieval service's database (OPENPAW_DATABASE_URL: its own role
 * suffices, only `retrieval.indexed_problems` is read, and re-keyed) and, unless `--dry-run`, NATS
 * (OPENPAW_NATS_URL and the retrieval service's NATS user: withdrawals are WithdrawProblem commands the
 * running retrieval service applies). Run it once every ingestion replica computes the current version;
 * safe to stop at any point and to run again. Prints one JSON line with the counts.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { connectNats } from '@openpaw/messaging';
import pg from 'pg';
import { MATHS_SIGNATURE_VERSION } from '../apps/ingestion/src/public-api.js';
import { PgProblemCatalog } from '../apps/retrieval/src/public-api.js';
import { deriveFromIngestion, sweepMathsKeys, type WithdrawStoredAnswer } from './maths-key-sweep.js';
import { MathsWithdrawals } from './maths-withdrawals.js';

const refuseInDryRun: WithdrawStoredAnswer = () => Promise.reject(new Error('a dry run withdraws nothing'));

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'dry-run': { type: 'boolean', default: false }, 'page-size': { type: 'string', default: '500' } } });
  const pageSize = Number(values['page-size']);
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new Error(`--page-size must be a positive integer, got "${values['page-size']}"`);
  const url = process.env['OPENPAW_DATABASE_URL'];
  if (url === undefined || url === '') throw new Error('OPENPAW_DATABASE_URL is not set (the retrieval service database)');
  const dryRun = values['dry-run'];
  const natsUrl = process.env['OPENPAW_NATS_URL'];
  if (!dryRun && (natsUrl === undefined || natsUrl === '')) throw new Error('OPENPAW_NATS_URL is not set (withdrawals are sent to the retrieval service; --dry-run needs none)');
  const pool = new pg.Pool({ connectionString: url, max: 1, application_name: 'openpaw-maths-reindex' });
  const nc = dryRun || natsUrl === undefined ? undefined : await connectNats({ servers: natsUrl, name: 'openpaw-maths-reindex', connectOptions: { waitOnFirstConnect: false } });
  const runId = randomUUID();
  const withdrawals = nc === undefined ? undefined : await MathsWithdrawals.open(nc, runId);
  const stop = new AbortController();
  process.once('SIGTERM', () => stop.abort());
  process.once('SIGINT', () => stop.abort());
  try {
    const withdraw: WithdrawStoredAnswer = withdrawals === undefined ? refuseInDryRun : (problem, reason) => withdrawals.withdraw(problem, reason);
    const result = await sweepMathsKeys(new PgProblemCatalog(pool), deriveFromIngestion, MATHS_SIGNATURE_VERSION, withdraw, { pageSize, dryRun, signal: stop.signal });
    console.log(JSON.stringify({ msg: result.stopped ? 'maths reindex stopped (run again to resume)' : 'maths reindex done', dryRun, runId, ...result }));
  } finally {
    withdrawals?.close();
    await nc?.drain();
    await pool.end();
  }
}

main().catch((error: unknown) => {
  console.error('maths reindex failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
