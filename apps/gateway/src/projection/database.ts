import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { openDatabase } from '@openpaw/persistence';
import type { DataSource } from 'typeorm';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { AssetProjectionStore } from '../assets/projection/asset-projection.store.js';
import { gatewayMigrations } from './migrations/index.js';
import { GATEWAY_SCHEMA, RunProjectionEntity } from './run-projection.entity.js';
import { RunProjectionStore } from './run-projection.store.js';
import { RunTransitionStore } from './run-transition.store.js';

export const GATEWAY_DATA_SOURCE = Symbol('openpaw.gateway.dataSource');

/** Closes the data source last, after consumers and requests have stopped. */
@Injectable()
export class GatewayDatabaseLifecycle implements OnApplicationShutdown {
  constructor(@Inject(GATEWAY_DATA_SOURCE) private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

export const databaseProviders: Provider[] = [
  {
    provide: GATEWAY_DATA_SOURCE,
    inject: [GATEWAY_CONFIG],
    useFactory: (config: GatewayConfig): Promise<DataSource> =>
      openDatabase({
        url: config.databaseUrl,
        schema: GATEWAY_SCHEMA,
        entities: [RunProjectionEntity],
        migrations: gatewayMigrations,
        ...(config.databasePoolSize === undefined ? {} : { poolSize: config.databasePoolSize }),
        applicationName: 'openpaw-gateway',
      }),
  },
  {
    provide: RunProjectionStore,
    inject: [GATEWAY_DATA_SOURCE],
    useFactory: (dataSource: DataSource) => new RunProjectionStore(dataSource),
  },
  {
    provide: RunTransitionStore,
    inject: [GATEWAY_DATA_SOURCE],
    useFactory: (dataSource: DataSource) => new RunTransitionStore(dataSource),
  },
  {
    provide: AssetProjectionStore,
    inject: [GATEWAY_DATA_SOURCE],
    useFactory: (dataSource: DataSource) => new AssetProjectionStore(dataSource),
  },
  GatewayDatabaseLifecycle,
];
