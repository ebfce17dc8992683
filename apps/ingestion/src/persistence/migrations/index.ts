import type { MigrationInterface } from 'typeorm';
import { CreateCommandReplies1764100000000 } from './1764100000000-create-command-replies.js';
import { KeepRepliesAsList1764400000000 } from './1764400000000-keep-replies-as-list.js';
import { registerSchemaMigrations } from '@openpaw/persistence';

/** The `ingestion` schema's migrations, in order. Never edit one that has shipped; add the next. */
export const ingestionMigrations: readonly (new () => MigrationInterface)[] = registerSchemaMigrations('ingestion', [CreateCommandReplies1764100000000, KeepRepliesAsList1764400000000]);
