import { Module } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { GATEWAY_DATA_SOURCE } from '../projection/database.js';
import { RunViewsController } from './run-views.controller.js';
import { SavedRunViewStore } from './saved-run-view.store.js';

/** Saved views of the runs list (issue 17). Imported by `GatewayModule`. */
@Module({
  controllers: [RunViewsController],
  providers: [{ provide: SavedRunViewStore, inject: [GATEWAY_DATA_SOURCE], useFactory: (dataSource: DataSource) => new SavedRunViewStore(dataSource) }],
})
export class RunViewsApiModule {}
