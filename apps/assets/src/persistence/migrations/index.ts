import type { MigrationInterface } from 'typeorm';
import { CreateAssetRegistry1764000000001 } from './1764000000001-create-asset-registry.js';
import { KeepRepliesBySubject1764400000000 } from './1764400000000-keep-replies-by-subject.js';
import { registerSchemaMigrations } from '@openpaw/persistence';

/** The `assets` schema's migrations, in order. Never edit one that has shipped; add the next. */
export const assetsMigrations: readonly (new () => MigrationInterface)[] = registerSchemaMigrations('assets', [CreateAssetRegistry1764000000001, KeepRepliesBySubject1764400000000]);
