import type { DataSource } from 'typeorm';

/**
 * Per-service PostgreSQL roles (issue 27, least privilege): the service that owns schema `S` logs in
 * as `openpaw_S`, which may read and write the rows of `S`'s tables and nothing else — no DDL, no
 * other schema. Migrations (DDL) run as the migrator (the owner role in the migrations Job's URL),
 * which owns the tables; the grants follow every table it creates later through default privileges.
 */
export function serviceRoleName(schema: string): string {
  if (!/^[a-z][a-z0-9_]*$/.test(schema)) throw new Error(`schema name "${schema}" must be lower-case letters, digits and _`);
  return `openpaw_${schema}`;
}

/** `OPENPAW_DATABASE_ROLES` (`per-service` | `off`), default `off`; throws naming the setting when it is neither. */
export function serviceRolesFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = env['OPENPAW_DATABASE_ROLES']?.trim() || 'off';
  if (raw !== 'per-service' && raw !== 'off') throw new Error(`OPENPAW_DATABASE_ROLES must be per-service or off, got "${raw}"`);
  return raw === 'per-service';
}

/**
 * The statements that create (if missing) and grant `openpaw_<schema>`, idempotent so a retried Job
 * repeats them harmlessly. The role gets LOGIN but no password: ops set it (`ALTER ROLE … PASSWORD`,
 * docs/ops/runbook.md) to what the service's database URL Secret says.
 */
export function serviceRoleStatements(schema: string): string[] {
  const role = serviceRoleName(schema);
  return [
    // Two Jobs (or two specs) can race to create the cluster-wide role: the loser's error is swallowed.
    `do $$ begin
       if not exists (select 1 from pg_roles where rolname = '${role}') then create role "${role}" login; end if;
     exception when duplicate_object or unique_violation then null;
     end $$`,
    `do $$ begin execute format('grant connect on database %I to "${role}"', current_database()); end $$`,
    `grant usage on schema "${schema}" to "${role}"`,
    `grant select, insert, update, delete on all tables in schema "${schema}" to "${role}"`,
    `grant usage, select on all sequences in schema "${schema}" to "${role}"`,
    `alter default privileges in schema "${schema}" grant select, insert, update, delete on tables to "${role}"`,
    `alter default privileges in schema "${schema}" grant usage, select on sequences to "${role}"`,
    // What `OPENPAW_DATABASE_SEARCH_PATH=role` relies on (a transaction pooler refuses the startup parameter).
    `alter role "${role}" set search_path = "${schema}"`,
  ];
}

/** Runs `serviceRoleStatements(schema)` on a data source connected as the migrator. */
export async function grantServiceRole(dataSource: DataSource, schema: string): Promise<string> {
  for (const statement of serviceRoleStatements(schema)) await dataSource.query(statement);
  return serviceRoleName(schema);
}
