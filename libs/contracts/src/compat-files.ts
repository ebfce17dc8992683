import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { SchemaSet } from './compat.js';
import { renderContractFiles } from './generate.js';

function schemaFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? schemaFiles(path) : path.endsWith('.schema.json') ? [path] : [];
  });
}

/** The previous release's message schemas (`contracts/baseline/events/...`), keyed by their path under `contracts/`. */
export function readBaseline(contractsDir: string): SchemaSet {
  const base = join(contractsDir, 'baseline');
  const set: Record<string, Record<string, unknown>> = {};
  for (const file of schemaFiles(base)) {
    const path = relative(base, file);
    if (path === 'events/envelope.schema.json') continue;
    set[path] = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  }
  return set;
}

/**
 * Subject-versions published today with no baseline entry. Each must get one in the change that
 * introduces it (`npm run contracts:check -- --add-missing`), so every later change is checked.
 */
export function missingFromBaseline(baseline: SchemaSet, current: SchemaSet): string[] {
  return Object.keys(current)
    .filter((path) => baseline[path] === undefined)
    .sort();
}

/** Today's message schemas, as generated from the catalog. */
export function currentSchemas(): SchemaSet {
  const set: Record<string, Record<string, unknown>> = {};
  for (const [path, content] of renderContractFiles()) {
    if (path.endsWith('.schema.json') && path !== 'events/envelope.schema.json') set[path] = JSON.parse(content) as Record<string, unknown>;
  }
  return set;
}
