export { createDataSource, isDatabaseUnavailable, openDatabase, searchPathModeFromEnv, type DatabaseOptions, type SearchPathMode } from './data-source.js';
export {
  migrateWithLock,
  migrationModeFromEnv,
  migrationNames,
  MIGRATIONS_LOCK_KEY,
  pendingMigrations,
  verifySchema,
  type MigrationMode,
  type VerifyOptions,
} from './migrations.js';
export {
  applyRetention,
  RETENTION_LOCK_KEY,
  runRetention,
  schemaTableSizes,
  tableSizes,
  type RetentionResult,
  type RetentionRule,
  type TableSize,
} from './retention.js';
export { fewBatchRows } from './batch-rows.js';
export { pipelinedPoolOf, sentTogether } from './pipelined-pool.js';
export { preparedSql, preparedSqlRunner, statementNamer, type PreparedSql, type PreparedSqlOptions, type PreparedSqlRunner } from './prepared-sql.js';
export {
  discoverSchemaMigrations,
  registeredSchemaMigrations,
  registerSchemaMigrations,
  SCHEMA_DECLARATION_CALL,
  type SchemaMigrations,
} from './schema-registry.js';
export { grantServiceRole, serviceRoleName, serviceRolePasswordFromEnv, serviceRolesFromEnv, serviceRoleStatements } from './service-roles.js';
