import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The reply kinds the two old tables held, by the subject each was published on (FROZEN subjects), for `down`. */
const PAPER_SEARCH_KINDS = {
  'openpaw.evt.paper-search.PaperSearchIntentParsed.v1': 'intent_parsed',
  'openpaw.evt.paper-search.SearchStrategyBuilt.v1': 'strategy_built',
  'openpaw.evt.paper-search.PaperSourcesSearched.v1': 'sources_searched',
  'openpaw.evt.paper-search.PapersDeduplicated.v1': 'deduplicated',
  'openpaw.evt.paper-search.PapersScored.v1': 'scored',
  'openpaw.evt.paper-search.PapersOrganised.v1': 'organised',
  'openpaw.evt.paper-search.PaperSearchStepFailed.v1': 'step_failed',
  'openpaw.evt.paper-search.LibraryReferencesImported.v1': 'library_imported',
} as const;
const FLOW_KINDS = {
  'openpaw.evt.research.ResearchLegCompleted.v1': 'leg_completed',
  'openpaw.evt.research.ResearchLegFailed.v1': 'leg_failed',
  'openpaw.evt.research.ResearchSynthesized.v1': 'synthesized',
  'openpaw.evt.research.ResearchSynthesisFailed.v1': 'synthesis_failed',
  'openpaw.evt.research.ResearchTitleGenerated.v1': 'title',
} as const;

const kindOf = (kinds: Record<string, string>) => `case subject ${Object.entries(kinds).map(([subject, kind]) => `when '${subject}' then '${kind}'`).join(' ')} end`;
const subjectsOf = (kinds: Record<string, string>) => Object.keys(kinds).map((subject) => `'${subject}'`).join(', ');

/**
 * The research service keeps its replies as every service does (`@openpaw/messaging`'s
 * `PgKeptReplyStore`): one `command_replies` table, `replies` = `[{ subject, id, data }]`, in place of
 * `paper_search_replies` and `research_flow_replies` (`subject` + `reply` = `{ kind, id, data }`).
 * Kept rows are carried over, so a command answered before still gets its reply on redelivery.
 */
export class OneCommandRepliesTable1764400000000 implements MigrationInterface {
  name = 'OneCommandRepliesTable1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "research"."command_replies" (
        command_id text primary key,
        replies jsonb not null,
        created_at timestamptz not null default now()
      )`);
    for (const old of ['paper_search_replies', 'research_flow_replies']) {
      await queryRunner.query(`
        insert into "research"."command_replies" (command_id, replies, created_at)
        select command_id, jsonb_build_array(jsonb_build_object('subject', subject, 'id', reply->'id', 'data', reply->'data')), created_at
        from "research"."${old}"`);
      await queryRunner.query(`drop table "research"."${old}"`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [old, kinds] of [
      ['paper_search_replies', PAPER_SEARCH_KINDS],
      ['research_flow_replies', FLOW_KINDS],
    ] as const) {
      await queryRunner.query(`
        create table "research"."${old}" (
          command_id text primary key,
          subject text not null,
          reply jsonb not null,
          created_at timestamptz not null default now()
        )`);
      await queryRunner.query(`
        insert into "research"."${old}" (command_id, subject, reply, created_at)
        select command_id, subject, jsonb_build_object('kind', ${kindOf(kinds)}, 'id', id, 'data', data), created_at
        from (select command_id, created_at, replies->0->>'subject' as subject, replies->0->'id' as id, replies->0->'data' as data from "research"."command_replies") r
        where subject in (${subjectsOf(kinds)})`);
    }
    await queryRunner.query(`drop table "research"."command_replies"`);
  }
}
