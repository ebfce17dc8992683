import type { MigrationInterface } from 'typeorm';
import { CreateArtifactsSchema1764100000000 } from './1764100000000-create-artifacts-schema.js';
import { KeepReplyIds1764400000000 } from './1764400000000-keep-reply-ids.js';
import { registerSchemaMigrations } from '@openpaw/persistence';

/** The `artifacts` schema's migrations, in order. Never edit one that has shipped; add the next. */
export const artifactsMigrations: readonly (new () => MigrationInterface)[] = registerSchemaMigrations('artifacts', [CreateArtifactsSchema1764100000000, KeepReplyIds1764400000000]);
