import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The runbook's migration rule (expand, then contract a release later), as a check over the SQL a
 * migration's `up` sends: during a rolling update the previous release's pods run against the new
 * schema, so a release may only add what they ignore. What they would trip on:
 * - a table, column, view, type or schema dropped or renamed (their statements name it);
 * - a column's type changed, or made NOT NULL (their writes may not fit);
 * - a column added NOT NULL without a default (their inserts do not set it).
 * Dropping an index or a constraint, or a default, relaxes what old pods rely on and is not flagged.
 */
const CONTRACTING: ReadonlyArray<{ readonly what: string; readonly pattern: RegExp }> = [
  { what: 'drops a table, view, type or schema', pattern: /\bdrop\s+(table|view|materialized\s+view|type|schema)\b/i },
  { what: 'drops a column', pattern: /\bdrop\s+column\b/i },
  { what: 'renames a table or column', pattern: /\brename\b/i },
  { what: "changes a column's type", pattern: /\balter\s+column\s+("[^"]+"|\w+)\s+(set\s+data\s+)?type\b/i },
  { what: 'makes a column NOT NULL', pattern: /\balter\s+column\s+("[^"]+"|\w+)\s+set\s+not\s+null\b/i },
];

/** What in one SQL statement would break the previous release's pods (empty when it only expands). */
export function contractingParts(sql: string): string[] {
  const text = withoutComments(sql);
  const found = CONTRACTING.filter(({ pattern }) => pattern.test(text)).map(({ what }) => what);
  if (addedColumns(text).some((column) => /\bnot\s+null\b/i.test(column) && !/\b(default|generated)\b/i.test(column))) found.push('adds a NOT NULL column without a default');
  return found;
}

/** Each `add column` clause's definition: up to the next comma outside parentheses, or the end. */
function addedColumns(sql: string): string[] {
  const clauses: string[] = [];
  for (const match of sql.matchAll(/\badd\s+column\b/gi)) {
    let depth = 0;
    let end = match.index + match[0].length;
    for (; end < sql.length; end += 1) {
      const char = sql[end];
      if (char === '(') depth += 1;
      else if (char === ')') {
        if (depth === 0) break;
        depth -= 1;
      } else if ((char === ',' || char === ';') && depth === 0) break;
    }
    clauses.push(sql.slice(match.index, end));
  }
  return clauses;
}

/** Every statement a migration's `up` sends, run against a runner that records them and answers every query with no rows. */
export async function statementsOf(migration: MigrationInterface): Promise<string[]> {
  const sent: string[] = [];
  const recorder = {
    query: (sql: string): Promise<unknown[]> => {
      sent.push(sql);
      return Promise.resolve([]);
    },
  };
  // Migrations here use only `query` (a spec checks that each call is recorded); anything else they touch fails loudly.
  await migration.up(recorder as unknown as QueryRunner);
  return sent;
}

function withoutComments(sql: string): string {
  return sql.replace(/--[^\n]*/g, ' ').replace(/\/\*[\s\S]*?\*\//g, ' ');
}
