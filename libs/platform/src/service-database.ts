import type { OnApplicationShutdown, Provider } from '@nestjs/common';
import { type DatabaseOptions, openDatabase, schemaTableSizes } from '@openpaw/persistence';
import type { DataSource } from 'typeorm';
import { PlatformMetrics } from './metrics.js';

/** What a service's settings say about its database. */
export interface DatabaseSettings {
  readonly databaseUrl: string;
  readonly poolSize?: number;
}

export interface ServiceDatabaseOptions {
  /** The service name: `application_name` is `openpaw-<service>` (who holds which connection, in pg_stat_activity). */
  readonly service: string;
  /** DI token the opened DataSource is provided under. */
  readonly dataSourceToken: symbol;
  /** DI token of the service's validated settings (read once at bootstrap). */
  readonly settingsToken: symbol;
  /** The one schema the service owns. */
  readonly schema: string;
  readonly entities?: DatabaseOptions['entities'];
  readonly migrations: NonNullable<DatabaseOptions['migrations']>;
}

/** Closes the data source; a provider of the service's own module, so it runs after its consumers stopped. */
class DataSourceCloser implements OnApplicationShutdown {
  constructor(private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

/**
 * A service's database, the same way in every service: opened from its settings (waiting while
 * PostgreSQL is down, migrating its own schema under the advisory lock), the size of each of its
 * tables on /metrics (`command_replies` and whatever else grows), and closed at shutdown. Spread the
 * providers into the service's module, beside the stores built on the data source.
 */
export function serviceDatabaseProviders(options: ServiceDatabaseOptions): Provider[] {
  const closerToken = Symbol(`openpaw.${options.service}.dataSourceCloser`);
  return [
    {
      provide: options.dataSourceToken,
      inject: [options.settingsToken],
      useFactory: (settings: DatabaseSettings): Promise<DataSource> =>
        openDatabase({
          url: settings.databaseUrl,
          schema: options.schema,
          ...(options.entities === undefined ? {} : { entities: options.entities }),
          migrations: options.migrations,
          ...(settings.poolSize === undefined ? {} : { poolSize: settings.poolSize }),
          applicationName: `openpaw-${options.service}`,
        }),
    },
    {
      provide: closerToken,
      inject: [options.dataSourceToken, { token: PlatformMetrics, optional: true }],
      useFactory: (dataSource: DataSource, metrics: PlatformMetrics | undefined) => {
        metrics?.watchTableSizes(() => schemaTableSizes(dataSource, options.schema));
        return new DataSourceCloser(dataSource);
      },
    },
  ];
}
