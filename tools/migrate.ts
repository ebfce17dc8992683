/**
 * The migrations Job (`node dist/tools/migrate.js`): applies every service schema's migrations,
 * one schema after another, holding the PostgreSQL advisory lock (`MIGRATIONS_LOCK_KEY`) so a
 * retried or doubled Job never migrates concurrently. Services only verify their schema version at
 * start (`OPENPAW_MIGRATIONS=verify` in the manifests). Env: OPENPAW_DATABASE_URL (the migrator, which
 * owns the tables), OPENPAW_DATABASE_ROLES (`per-service`: after each schema, create and grant its
 * service's role `openpaw_<schema>`, DML on that schema only; default `off`), OPENPAW_DATABASE_ROLE_PASSWORD
 * (a local stack's one password for every service role: docker-compose.yml; a cluster leaves it unset).
 *
 * The schemas are not listed here: the Job loads every module of apps/ and libs/ that declares a
 * schema with `registerSchemaMigrations` (the same declaration the service opens its database with),
 * so a service's migrations cannot be left out (tools/migrate.spec.ts checks every migration class).
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDataSource, discoverSchemaMigrations, grantServiceRole, migrateWithLock, type SchemaMigrations, serviceRolePasswordFromEnv, serviceRolesFromEnv } from '@openpaw/persistence';

/** The checkout or dist/ this file runs from, and the extension its modules have there. */
export function codeRoot(moduleUrl: string = import.meta.url): { root: string; extension: '.js' | '.ts' } {
  const file = fileURLToPath(moduleUrl);
  return { root: join(dirname(file), '..'), extension: file.endsWith('.ts') ? '.ts' : '.js' };
}

/** Every schema the services declare, as the Job will migrate them. */
export function schemasToMigrate(): Promise<SchemaMigrations[]> {
  const { root, extension } = codeRoot();
  return discoverSchemaMigrations(root, extension);
}

export interface MigrateOptions {
  /** Create and grant each schema's service role after migrating it (`OPENPAW_DATABASE_ROLES=per-service`). */
  readonly serviceRoles?: boolean;
  /** The password every service role gets (`OPENPAW_DATABASE_ROLE_PASSWORD`); default none (ops set each role's). */
  readonly rolePassword?: string;
  readonly log?: (line: string) => void;
}

/** Applies each schema's pending migrations under the advisory lock; one line per schema (and role) on stdout. */
export async function migrateAll(url: string, schemas: readonly SchemaMigrations[], options: MigrateOptions = {}): Promise<void> {
  const log = options.log ?? console.log;
  for (const { schema, migrations } of schemas) {
    const dataSource = createDataSource({ url, schema, migrations, poolSize: 1, applicationName: 'openpaw-migrate' });
    await dataSource.initialize();
    try {
      const applied = await migrateWithLock(dataSource, schema);
      log(`migrate: ${schema} ${applied.length === 0 ? 'up to date' : `applied ${applied.join(', ')}`}`);
      if (options.serviceRoles === true) log(`migrate: role ${await grantServiceRole(dataSource, schema, options.rolePassword === undefined ? {} : { password: options.rolePassword })} may read and write ${schema} only`);
    } finally {
      await dataSource.destroy();
    }
  }
}

async function main(): Promise<void> {
  const url = process.env['OPENPAW_DATABASE_URL'] ?? 'postgres://openpaw@127.0.0.1:5432/openpaw';
  const serviceRoles = serviceRolesFromEnv();
  const rolePassword = serviceRolePasswordFromEnv();
  const schemas = await schemasToMigrate();
  console.log(`migrate: schemas ${schemas.map((entry) => entry.schema).join(', ')}`);
  await migrateAll(url, schemas, { serviceRoles, ...(rolePassword === undefined ? {} : { rolePassword }) });
}

// Run only as the Job's entry point, not when a spec imports the functions above.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  main().catch((error: unknown) => {
    console.error('migrate failed:', error);
    process.exit(1);
  });
}
