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
 * `OPENPAW_DATABASE_ROLE_PASSWORD`: one password the migrator gives every service role, for a local
 * stack whose PostgreSQL asks for passwords (docker-compose.yml); undefined when unset. A cluster
 * leaves it unset and sets each role's own password (docs/ops/runbook.md). Throws naming the settings
 * when it is set without `OPENPAW_DATABASE_ROLES=per-service` (there would be no role to give it to).
 */
export function serviceRolePasswordFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const password = env['OPENPAW_DATABASE_ROLE_PASSWORD'];
  if (password === undefined || password === '') return undefined;
  if (!serviceRolesFromEnv(env)) throw new Error('OPENPAW_DATABASE_ROLE_PASSWORD is set but OPENPAW_DATABASE_ROLES is not per-service');
  return password;
}

/** A PostgreSQL string literal (`standard_conforming_strings` is on, the default since 9.1: only quotes are doubled). */
function sqlLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
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

/**
 * Runs `serviceRoleStatements(schema)` on a data source connected as the migrator, and sets the role's
 * password when one is given (`serviceRolePasswordFromEnv`).
 */
export async function grantServiceRole(dataSource: DataSource, schema: string, options: { readonly password?: string } = {}): Promise<string> {
  for (const statement of serviceRoleStatements(schema)) await dataSource.query(statement);
  const role = serviceRoleName(schema);
  // ALTER ROLE takes no bind parameters: the password goes in as a quoted literal.
  if (options.password !== undefined) await dataSource.query(`alter role "${role}" password ${sqlLiteral(options.password)}`);
  return role;
}
