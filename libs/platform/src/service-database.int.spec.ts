import { Inject, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { PlatformMetrics } from './metrics.js';
import { serviceDatabaseProviders } from './service-database.js';

const SETTINGS = Symbol('demo.settings');
const DATA_SOURCE = Symbol('demo.dataSource');

class CreateDemoTable1700000000000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    await runner.query('create table demo_items (id int primary key)');
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('drop table demo_items');
  }
}

/** A store on the data source, as a service's stores are: it must be usable until the module shuts down. */
@Injectable()
class DemoStore {
  constructor(@Inject(DATA_SOURCE) readonly dataSource: DataSource) {}
}

describe('serviceDatabaseProviders', () => {
  it('opens the service schema from its settings, migrated, named after the service, and closes it at shutdown', async () => {
    const databaseUrl = await freshDatabase('platform_service_database');
    @Module({
      providers: [
        { provide: SETTINGS, useValue: { databaseUrl, poolSize: 2 } },
        ...serviceDatabaseProviders({ service: 'demo', dataSourceToken: DATA_SOURCE, settingsToken: SETTINGS, schema: 'demo', migrations: [CreateDemoTable1700000000000] }),
        DemoStore,
      ],
    })
    class DemoModule {}
    const app = await NestFactory.createApplicationContext(DemoModule, { logger: false });
    const { dataSource } = app.get(DemoStore);
    expect(dataSource.isInitialized).toBe(true);
    const [row] = await dataSource.query<Array<{ name: string; migrated: boolean }>>(
      "select current_setting('application_name') as name, to_regclass('demo.demo_items') is not null as migrated",
    );
    expect(row).toEqual({ name: 'openpaw-demo', migrated: true });
    await app.close();
    expect(dataSource.isInitialized).toBe(false);
  });

  it('puts the size of each table of its schema on the service metrics', async () => {
    const databaseUrl = await freshDatabase('platform_service_database_sizes');
    const metrics = new PlatformMetrics('demo', { defaultMetrics: false });
    @Module({
      providers: [
        { provide: SETTINGS, useValue: { databaseUrl, poolSize: 2 } },
        { provide: PlatformMetrics, useValue: metrics },
        ...serviceDatabaseProviders({ service: 'demo', dataSourceToken: DATA_SOURCE, settingsToken: SETTINGS, schema: 'demo', migrations: [CreateDemoTable1700000000000] }),
      ],
    })
    class DemoModule {}
    const app = await NestFactory.createApplicationContext(DemoModule, { logger: false });
    try {
      const { body } = await metrics.scrape();
      expect(body).toMatch(/^openpaw_table_size_bytes\{[^}]*table="demo\.demo_items"[^}]*\} [1-9]\d*$/m);
      expect(body).toMatch(/^openpaw_table_rows_estimate\{[^}]*table="demo\.demo_items"[^}]*\} 0$/m);
      expect(body).not.toContain('demo.migrations');
    } finally {
      await app.close();
    }
  });
});
