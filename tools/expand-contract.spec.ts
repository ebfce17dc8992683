import { contractingParts, statementsOf } from './expand-contract.js';
import { schemasToMigrate } from './migrate.js';

/**
 * Migrations that contract (`contractingParts`), each reviewed: `<schema>/<migration name>` and why a
 * rolling update across it is safe. A new contraction fails the check below until it is listed here,
 * which a review should accept only for a drop a release after the code stopped using what it drops.
 */
const REVIEWED_CONTRACTIONS: Readonly<Record<string, string>> = {
  // The four below shipped together, before this check, in the release that kept replies as lists
  // (ADR 0002): they rewrote the kept-reply tables in place, so pods of the release before it could not
  // keep replies until they were replaced. Released and applied; listed so that nothing new joins them.
  'artifacts/KeepReplyIds1764400000000': 'before the check: kept replies as lists, in place',
  'ingestion/KeepRepliesAsList1764400000000': 'before the check: kept replies as lists, in place',
  'retrieval/KeepRepliesAsList1764400000000': 'before the check: kept replies as lists, in place',
  'research/OneCommandRepliesTable1764400000000': 'before the check: kept replies as lists, in one table',
};

describe('expand, then contract a release later (runbook, "Migrations")', () => {
  it.each([
    ['create table "s"."t" (id uuid primary key, n int not null)'],
    ['alter table "s"."t" add column note text'],
    ['alter table "s"."t" add column n int not null default 0, add column m numeric(10, 2)'],
    ['alter table "s"."t" add column price numeric(10, 2) not null default 0'],
    ['alter table "s"."t" add column total int generated always as (n * 2) stored not null'],
    ['create index concurrently t_n on "s"."t" (n)'],
    ['drop index "s"."t_n"'],
    ['alter table "s"."t" drop constraint t_n_check'],
    ['alter table "s"."t" alter column n drop not null, alter column n drop default'],
    ['-- drop table "s"."t" is for the next release\ncreate table "s"."u" (id int)'],
    ['/* rename later */ alter table "s"."t" add column later text'],
  ])('lets an expanding statement through: %s', (sql) => {
    expect(contractingParts(sql)).toEqual([]);
  });

  it.each([
    ['drop table "s"."t"', 'drops a table, view, type or schema'],
    ['drop view s.v', 'drops a table, view, type or schema'],
    ['alter table "s"."t" drop column note', 'drops a column'],
    ['alter table "s"."t" rename column note to remark', 'renames a table or column'],
    ['alter table "s"."t" rename to u', 'renames a table or column'],
    ['alter table "s"."t" alter column n type bigint', "changes a column's type"],
    ['alter table "s"."t" alter column "n" set data type bigint', "changes a column's type"],
    ['alter table "s"."t" alter column n set not null', 'makes a column NOT NULL'],
    ['alter table "s"."t" add column n int not null', 'adds a NOT NULL column without a default'],
    ['alter table "s"."t" add column note text, add column price numeric(10, 2) not null', 'adds a NOT NULL column without a default'],
  ])('flags a contracting statement: %s', (sql, what) => {
    expect(contractingParts(sql)).toEqual([what]);
  });

  it('every migration only expands, except the reviewed contractions', async () => {
    const found = new Map<string, string[]>();
    for (const { schema, migrations } of await schemasToMigrate()) {
      for (const Migration of migrations) {
        const migration = new Migration();
        const statements = await statementsOf(migration);
        // A migration that sent nothing through `query` would pass unseen: each one here sends its DDL that way.
        expect({ migration: migration.name, statements: statements.length > 0 }).toEqual({ migration: migration.name, statements: true });
        const parts = [...new Set(statements.flatMap(contractingParts))];
        if (parts.length > 0) found.set(`${schema}/${migration.name ?? Migration.name}`, parts);
      }
    }
    const unreviewed = [...found].filter(([key]) => REVIEWED_CONTRACTIONS[key] === undefined).map(([key, parts]) => `${key}: ${parts.join('; ')}`);
    expect(unreviewed).toEqual([]);
    // A listed migration that no longer contracts (or is gone) leaves the list.
    expect(Object.keys(REVIEWED_CONTRACTIONS).filter((key) => !found.has(key))).toEqual([]);
  });
});
