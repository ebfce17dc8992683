import type { MigrationInterface } from 'typeorm';
import { CreateSolutionAttempts1764000000000 } from './1764000000000-create-solution-attempts.js';
import { KeepReplyBySubject1764400000000 } from './1764400000000-keep-reply-by-subject.js';
import { RenewableClaimLease1764900000000 } from './1764900000000-renewable-claim-lease.js';
import { registerSchemaMigrations } from '@openpaw/persistence';

/** The `solve` schema's migrations, in order. Never edit one that has shipped; add the next. */
export const solveMigrations: readonly (new () => MigrationInterface)[] = registerSchemaMigrations('solve', [CreateSolutionAttempts1764000000000, KeepReplyBySubject1764400000000, RenewableClaimLease1764900000000]);
