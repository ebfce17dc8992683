import type { MigrationInterface } from 'typeorm';
import { CreateCommandReplies1764100000000 } from './1764100000000-create-command-replies.js';

/** The `ingestion` schema's migrations, in order. Never edit one that has shipped; add the next. */
export const ingestionMigrations: readonly (new () => MigrationInterface)[] = [CreateCommandReplies1764100000000];
