import { Module } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { GATEWAY_DATA_SOURCE } from '../projection/database.js';
import { JetStreamOps } from './jetstream-ops.js';
import { OperatorAuditStore } from './operator-audit.store.js';
import { OpsController } from './ops.controller.js';
import { VisualTakedownController } from '../visual-degrees/takedown/visual-takedown.controller.js';
import { VisualTakedownHandler, VisualTakedownReplies } from '../visual-degrees/takedown/visual-takedown.handler.js';

/** The operations API (admin role): lanes, dead letters and redriving them, visual degrees' takedowns, the audit log. Imported by `GatewayModule`. */
@Module({
  controllers: [OpsController, VisualTakedownController],
  providers: [JetStreamOps, VisualTakedownReplies, VisualTakedownHandler, { provide: OperatorAuditStore, inject: [GATEWAY_DATA_SOURCE], useFactory: (dataSource: DataSource) => new OperatorAuditStore(dataSource) }],
})
export class OpsApiModule {}
