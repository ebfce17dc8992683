import type { MigrationInterface } from 'typeorm';
import { CreateAssetRegistry1764000000001 } from './1764000000001-create-asset-registry.js';

/** The `assets` schema's migrations, in order. Never edit one that has shipped; add the next. */
export const assetsMigrations: readonly (new () => MigrationInterface)[] = [CreateAssetRegistry1764000000001];
