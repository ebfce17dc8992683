import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MigrationInterface } from 'typeorm';

/** A schema and the migrations the service that owns it applies (or verifies) at start. */
export interface SchemaMigrations {
  readonly schema: string;
  readonly migrations: readonly (new () => MigrationInterface)[];
}

// On globalThis: a module loaded twice (a symlinked dist path beside its real path) still shares one registry.
const REGISTRY_KEY = Symbol.for('openpaw.persistence.schemaRegistry');
type Registry = Map<string, SchemaMigrations>;
function registry(): Registry {
  const holder = globalThis as typeof globalThis & { [REGISTRY_KEY]?: Registry };
  holder[REGISTRY_KEY] ??= new Map();
  return holder[REGISTRY_KEY];
}

/**
 * Declares a schema's migrations where a service defines them (its `migrations/index.ts`), and
 * returns them unchanged for the service to open its database with. The migrations Job finds every
 * declaration by scanning the code for this call (`discoverSchemaMigrations`), so a service's schema
 * cannot be missing from the Job. Two declarations of one schema with different migrations throw.
 */
export function registerSchemaMigrations<M extends readonly (new () => MigrationInterface)[]>(schema: string, migrations: M): M {
  const known = registry().get(schema);
  if (known !== undefined && (known.migrations.length !== migrations.length || known.migrations.some((m, i) => m !== migrations[i]))) {
    throw new Error(`schema ${schema} is declared twice with different migrations`);
  }
  registry().set(schema, { schema, migrations });
  return migrations;
}

/** Every schema declared in the modules loaded so far, in declaration order. */
export function registeredSchemaMigrations(): SchemaMigrations[] {
  return [...registry().values()];
}

/** The call a declaring module contains (what discovery searches for). */
export const SCHEMA_DECLARATION_CALL = 'registerSchemaMigrations(';

function sourceFiles(dir: string, extension: '.js' | '.ts'): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(path, extension));
    else if (entry.name.endsWith(extension) && !/\.(spec|d)\.[jt]s$/.test(entry.name)) found.push(path);
  }
  return found;
}

/**
 * The migrations Job's discovery: loads every module under `<root>/apps/*\/src` and
 * `<root>/libs/*\/src` that declares a schema (contains `registerSchemaMigrations(`), then returns
 * the registry. `root` is the checkout (`.ts`, in tests) or `dist/` (`.js`, in the image).
 */
export async function discoverSchemaMigrations(root: string, extension: '.js' | '.ts'): Promise<SchemaMigrations[]> {
  const declaring: string[] = [];
  for (const top of ['apps', 'libs']) {
    for (const project of readdirSync(join(root, top), { withFileTypes: true })) {
      if (!project.isDirectory()) continue;
      const src = join(root, top, project.name, 'src');
      let files: string[];
      try {
        files = sourceFiles(src, extension);
      } catch {
        continue; // a project without src/ (assets only)
      }
      for (const file of files) {
        if (file.endsWith(`schema-registry${extension}`)) continue;
        if (readFileSync(file, 'utf8').includes(SCHEMA_DECLARATION_CALL)) declaring.push(file);
      }
    }
  }
  for (const file of declaring.sort()) await import(pathToFileURL(file).href);
  return registeredSchemaMigrations();
}
