import type { Provider } from '@nestjs/common';
import { serviceDatabaseProviders } from '@openpaw/platform';
import type { DataSource } from 'typeorm';
import { ASSETS_SCHEMA } from '../config.js';
import { ASSET_REGISTRY, ASSETS_SETTINGS } from '../ports.js';
import { AssetVersionEntity, ProblemEntity } from './entities.js';
import { assetsMigrations } from './migrations/index.js';
import { PgAssetRegistry } from './pg-asset-registry.js';

export const ASSETS_DATA_SOURCE = Symbol('openpaw.assets.dataSource');

export const databaseProviders: Provider[] = [
  ...serviceDatabaseProviders({
    service: 'assets',
    dataSourceToken: ASSETS_DATA_SOURCE,
    settingsToken: ASSETS_SETTINGS,
    schema: ASSETS_SCHEMA,
    entities: [ProblemEntity, AssetVersionEntity],
    migrations: assetsMigrations,
  }),
  {
    provide: ASSET_REGISTRY,
    inject: [ASSETS_DATA_SOURCE],
    useFactory: (dataSource: DataSource) => new PgAssetRegistry(dataSource),
  },
];
