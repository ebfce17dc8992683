import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeRoot, schemasToMigrate } from './migrate.js';

/** Every non-spec source file under apps/*\/src and libs/*\/src that defines a TypeORM migration class. */
function migrationSourceFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && readFileSync(path, 'utf8').includes('implements MigrationInterface')) found.push(path);
    }
  };
  for (const top of ['apps', 'libs']) {
    for (const project of readdirSync(join(root, top))) {
      const src = join(root, top, project, 'src');
      try {
        walk(src);
      } catch {
        // a project without src/
      }
    }
  }
  return found;
}

/** A class exported by a migration module: it has `up` and `down` on its prototype. */
function isMigrationClass(value: unknown): value is new () => { up: unknown; down: unknown } {
  if (typeof value !== 'function') return false;
  const prototype = (value as { prototype?: Record<string, unknown> }).prototype;
  return typeof prototype?.['up'] === 'function' && typeof prototype['down'] === 'function';
}

describe('migrations Job discovery (tools/migrate.ts)', () => {
  it('runs every migration class any service defines, each under exactly one schema', async () => {
    const schemas = await schemasToMigrate();
    const jobRuns = new Map<unknown, string>();
    for (const { schema, migrations } of schemas) {
      for (const migration of migrations) {
        expect(jobRuns.get(migration)).toBeUndefined();
        jobRuns.set(migration, schema);
      }
    }
    const { root } = codeRoot(new URL('./migrate.ts', import.meta.url).href);
    const files = migrationSourceFiles(root);
    expect(files.length).toBeGreaterThan(20);
    const missed: string[] = [];
    for (const file of files) {
      const module = (await import(file)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(module)) {
        if (isMigrationClass(value) && !jobRuns.has(value)) missed.push(`${name} (${file.slice(root.length + 1)})`);
      }
    }
    expect(missed).toEqual([]);
  });

  it('finds the schema of every service that owns one, research included', async () => {
    const names = (await schemasToMigrate()).map((entry) => entry.schema).sort();
    expect(names).toEqual(['artifacts', 'assets', 'coordinator', 'gateway', 'ingestion', 'research', 'retrieval', 'solve']);
  });
});
