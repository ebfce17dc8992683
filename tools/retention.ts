/**
 * The retention run (`node dist/tools/retention.js`; a CronJob in deploy/): archives the step logs
 * of runs that ended before their horizon to blob storage and deletes them, deletes what is past
 * its horizon (see retention-rules.ts), each under an advisory lock, then prints one JSON line with
 * what it archived and deleted and every watched table's size. Env: OPENPAW_DATABASE_URL,
 * OPENPAW_RETENTION_*, and the blob store's (OPENPAW_GCS_BUCKET, else OPENPAW_BLOB_DIR).
 */
import { createDataSource, runRetention, tableSizes } from '@openpaw/persistence';
import { createBlobStoreFromEnv } from '@openpaw/providers/blob';
import { productionRegistry } from '../apps/coordinator/src/workflows/index.js';
import { retentionRules, stepLogArchivePolicy, WATCHED_TABLES } from './retention-rules.js';
import { archiveStepLogs } from './step-log-archive.js';

async function main(): Promise<void> {
  const terminal = [...new Set(productionRegistry().all().flatMap((definition) => definition.terminal.map(String)))];
  const rules = retentionRules(process.env, terminal);
  const archivePolicy = stepLogArchivePolicy(process.env, terminal);
  const url = process.env['OPENPAW_DATABASE_URL'] ?? 'postgres://openpaw@127.0.0.1:5432/openpaw';
  const dataSource = createDataSource({ url, schema: 'public', poolSize: 2, applicationName: 'openpaw-retention' });
  await dataSource.initialize();
  try {
    const archived = archivePolicy === undefined ? 'kept' : await archiveStepLogs(dataSource, await createBlobStoreFromEnv(process.env), archivePolicy);
    const deleted = await runRetention(dataSource, rules);
    const sizes = await tableSizes(dataSource, WATCHED_TABLES);
    const busy = deleted === undefined || archived === undefined;
    console.log(JSON.stringify({ msg: busy ? 'retention: another run holds a lock' : 'retention done', archived, deleted, sizes }));
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  console.error('retention failed:', error);
  process.exit(1);
});
