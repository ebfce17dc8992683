/**
 * The migrations Job (`node dist/tools/migrate.js`): applies every service schema's migrations,
 * one schema after another, holding the PostgreSQL advisory lock (`MIGRATIONS_LOCK_KEY`) so a
 * retried or doubled Job never migrates concurrently. Services only verify their schema version at
 * start (`OPENPAW_MIGRATIONS=verify` in the manifests). Env: OPENPAW_DATABASE_URL.
 */
import { artifactsMigrations } from '../apps/artifacts/src/persistence/migrations/index.js';
import { assetsMigrations } from '../apps/assets/src/persistence/migrations/index.js';
import { gatewayMigrations } from '../apps/gateway/src/projection/migrations/index.js';
import { ingestionMigrations } from '../apps/ingestion/src/persistence/migrations/index.js';
import { retrievalMigrations } from '../apps/retrieval/src/persistence/migrations/index.js';
import { solveMigrations } from '../apps/solve/src/persistence/migrations/index.js';
import { createDataSource, migrateWithLock } from '@openpaw/persistence';
import { coordinatorMigrations } from '@openpaw/saga';
import type { MigrationInterface } from 'typeorm';

/** Every schema and its migrations (each service owns one schema; see its persistence/ folder). */
const SCHEMAS: readonly { readonly schema: string; readonly migrations: readonly (new () => MigrationInterface)[] }[] = [
  { schema: 'coordinator', migrations: coordinatorMigrations },
  { schema: 'gateway', migrations: gatewayMigrations },
  { schema: 'ingestion', migrations: ingestionMigrations },
  { schema: 'retrieval', migrations: retrievalMigrations },
  { schema: 'solve', migrations: solveMigrations },
  { schema: 'assets', migrations: assetsMigrations },
  { schema: 'artifacts', migrations: artifactsMigrations },
];

async function main(): Promise<void> {
  const url = process.env['OPENPAW_DATABASE_URL'] ?? 'postgres://openpaw@127.0.0.1:5432/openpaw';
  for (const { schema, migrations } of SCHEMAS) {
    const dataSource = createDataSource({ url, schema, migrations, poolSize: 1, applicationName: 'openpaw-migrate' });
    await dataSource.initialize();
    try {
      const applied = await migrateWithLock(dataSource, schema);
      console.log(`migrate: ${schema} ${applied.length === 0 ? 'up to date' : `applied ${applied.join(', ')}`}`);
    } finally {
      await dataSource.destroy();
    }
  }
}

main().catch((error: unknown) => {
  console.error('migrate failed:', error);
  process.exit(1);
});
