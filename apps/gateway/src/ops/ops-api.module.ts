import { Module } from '@nestjs/common';
import { JetStreamOps } from './jetstream-ops.js';
import { OpsController } from './ops.controller.js';

/** `GET /ops/lanes`, `GET /ops/dead-letters` (admin role): imported by `GatewayModule`. */
@Module({
  controllers: [OpsController],
  providers: [JetStreamOps],
})
export class OpsApiModule {}
