import type { MigrationInterface } from 'typeorm';
import { CreateLibraryAndReplies1764100000000 } from './1764100000000-create-library-and-replies.js';
import { CreateResearchFlowReplies1764300000000 } from './1764300000000-create-research-flow-replies.js';
import { OneCommandRepliesTable1764400000000 } from './1764400000000-one-command-replies-table.js';
import { CreateResearchWebhooks1764500000000 } from './1764500000000-create-research-webhooks.js';
import { CreatePaperSetRunEnds1764600000000 } from './1764600000000-create-paper-set-run-ends.js';
import { CreateBackgroundCalls1764700000000 } from './1764700000000-create-background-calls.js';
import { registerSchemaMigrations } from '@openpaw/persistence';

/** The `research` schema's migrations, in order. Never edit one that has shipped; add the next. */
export const researchMigrations: readonly (new () => MigrationInterface)[] = registerSchemaMigrations('research', [
  CreateLibraryAndReplies1764100000000,
  // Spec 05 (research flow).
  CreateResearchFlowReplies1764300000000,
  // One kept-reply store (issue 10).
  OneCommandRepliesTable1764400000000,
  // Per-user research webhooks (ADR 0018).
  CreateResearchWebhooks1764500000000,
  // Retention of stored paper lists (issue 29, ADR 0031).
  CreatePaperSetRunEnds1764600000000,
  // Long legs resumed, never billed twice, after a rollout (issue 27).
  CreateBackgroundCalls1764700000000,
]);
