import type { MigrationInterface } from 'typeorm';
import { CreateCommandReplies1764100000000 } from './1764100000000-create-command-replies.js';
import { KeepRepliesAsList1764400000000 } from './1764400000000-keep-replies-as-list.js';
import { AddExternalReads1765100000000 } from './1765100000000-add-external-reads.js';
import { registerSchemaMigrations } from '@openpaw/persistence';

/** The `ingestion` schema's migrations, in order. Never edit one that has shipped; add the next. */
export const ingestionMigrations: readonly (new () => MigrationInterface)[] = registerSchemaMigrations('ingestion', [
  CreateCommandReplies1764100000000,
  KeepRepliesAsList1764400000000,
  AddExternalReads1765100000000,
]);
