/**
 * The retention run (`node dist/tools/retention.js`; a CronJob in deploy/): deletes what is past
 * its horizon (see retention-rules.ts) under an advisory lock, then prints one JSON line with what
 * it deleted and every watched table's size. Env: OPENPAW_DATABASE_URL, OPENPAW_RETENTION_*.
 */
import { createDataSource, runRetention, tableSizes } from '@openpaw/persistence';
import { productionRegistry } from '../apps/coordinator/src/workflows/index.js';
import { retentionRules, WATCHED_TABLES } from './retention-rules.js';

async function main(): Promise<void> {
  const terminal = [...new Set(productionRegistry().all().flatMap((definition) => definition.terminal.map(String)))];
  const rules = retentionRules(process.env, terminal);
  const url = process.env['OPENPAW_DATABASE_URL'] ?? 'postgres://openpaw@127.0.0.1:5432/openpaw';
  const dataSource = createDataSource({ url, schema: 'public', poolSize: 2, applicationName: 'openpaw-retention' });
  await dataSource.initialize();
  try {
    const deleted = await runRetention(dataSource, rules);
    const sizes = await tableSizes(dataSource, WATCHED_TABLES);
    console.log(JSON.stringify({ msg: deleted === undefined ? 'retention: another run holds the lock' : 'retention done', deleted, sizes }));
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  console.error('retention failed:', error);
  process.exit(1);
});
