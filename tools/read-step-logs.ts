/**
 * Prints a run's archived step logs as NDJSON, in append order (`node dist/tools/read-step-logs.js
 * <run id>`), from the blob store the retention run archives to (OPENPAW_GCS_BUCKET, else
 * OPENPAW_BLOB_DIR): for inspection, or to replay an archived run through its definition.
 */
import { createBlobStoreFromEnv } from '@openpaw/providers/blob';
import { readStepLogArchive } from './step-log-archive.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function main(): Promise<void> {
  const runId = process.argv[2] ?? '';
  if (!UUID.test(runId)) throw new Error(`usage: read-step-logs.js <run id (a UUID)>; got "${runId}"`);
  const logs = await readStepLogArchive(await createBlobStoreFromEnv(process.env), runId);
  if (logs.length === 0) throw new Error(`no archived step logs for run ${runId} (still in PostgreSQL, or never archived)`);
  for (const log of logs) process.stdout.write(`${JSON.stringify(log)}\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
