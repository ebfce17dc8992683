import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { openDatabase } from '@openpaw/persistence';
import type { DataSource } from 'typeorm';
import { ASSETS_SCHEMA, type AssetsSettings } from '../config.js';
import { ASSET_REGISTRY, ASSETS_SETTINGS } from '../ports.js';
import { AssetVersionEntity, CommandReplyEntity, ProblemEntity } from './entities.js';
import { assetsMigrations } from './migrations/index.js';
import { PgAssetRegistry } from './pg-asset-registry.js';

export const ASSETS_DATA_SOURCE = Symbol('openpaw.assets.dataSource');

/** Closes the data source last, after the consumers have stopped. */
@Injectable()
export class AssetsDatabaseLifecycle implements OnApplicationShutdown {
  constructor(@Inject(ASSETS_DATA_SOURCE) private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

export const databaseProviders: Provider[] = [
  {
    provide: ASSETS_DATA_SOURCE,
    inject: [ASSETS_SETTINGS],
    useFactory: (settings: AssetsSettings): Promise<DataSource> =>
      openDatabase({
        url: settings.databaseUrl,
        schema: ASSETS_SCHEMA,
        entities: [ProblemEntity, AssetVersionEntity, CommandReplyEntity],
        migrations: assetsMigrations,
        poolSize: settings.poolSize,
        applicationName: 'openpaw-assets',
      }),
  },
  {
    provide: ASSET_REGISTRY,
    inject: [ASSETS_DATA_SOURCE],
    useFactory: (dataSource: DataSource) => new PgAssetRegistry(dataSource),
  },
  AssetsDatabaseLifecycle,
];
