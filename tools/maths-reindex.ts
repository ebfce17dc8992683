/**
 * Re-keys (or clears the key of) problems indexed under an older maths signature (`node dist/tools/maths-reindex.js [--dry-run]
 * [--page-size N]`), with the retrieval service's database (OPENPAW_DATABASE_URL: its own role suffices,
 * only `retrieval.indexed_problems` is read and updated). Run it once every ingestion replica computes
 * the current version (a replica still on the old one would look the re-keyed rows up by the old hash
 * alone); safe to stop at any point and to run again. Prints one JSON line with the counts
 * (tools/maths-key-sweep.ts says what each means).
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { MATHS_SIGNATURE_VERSION } from '../apps/ingestion/src/public-api.js';
import { PgProblemCatalog } from '../apps/retrieval/src/public-api.js';
import { deriveFromIngestion, sweepMathsKeys } from './maths-key-sweep.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'dry-run': { type: 'boolean', default: false }, 'page-size': { type: 'string', default: '500' } } });
  const pageSize = Number(values['page-size']);
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new Error(`--page-size must be a positive integer, got "${values['page-size']}"`);
  const url = process.env['OPENPAW_DATABASE_URL'];
  if (url === undefined || url === '') throw new Error('OPENPAW_DATABASE_URL is not set (the retrieval service database)');
  const pool = new pg.Pool({ connectionString: url, max: 1, application_name: 'openpaw-maths-reindex' });
  const stop = new AbortController();
  process.once('SIGTERM', () => stop.abort());
  process.once('SIGINT', () => stop.abort());
  try {
    const result = await sweepMathsKeys(new PgProblemCatalog(pool), deriveFromIngestion, MATHS_SIGNATURE_VERSION, { pageSize, dryRun: values['dry-run'], signal: stop.signal });
    console.log(JSON.stringify({ msg: result.stopped ? 'maths reindex stopped (run again to resume)' : 'maths reindex done', dryRun: values['dry-run'], ...result }));
  } finally {
    await pool.end();
  }
}

main().catch((error: unknown) => {
  console.error('maths reindex failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
