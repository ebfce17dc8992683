import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@openpaw/platform';
import type { SagaRegistry } from '@openpaw/saga';
import type { CoordinatorSettings } from './config.js';
import { COORDINATOR_SETTINGS, CoordinatorService, SAGA_REGISTRY } from './coordinator.service.js';

export const SERVICE_NAME = 'coordinator';

/** The saga coordinator service: owns every workflow's state machine, runs, step logs and timers. */
@Module({})
export class CoordinatorModule {
  static forRoot(settings: CoordinatorSettings, registry: SagaRegistry): DynamicModule {
    return {
      module: CoordinatorModule,
      imports: [PlatformModule.forService(SERVICE_NAME)],
      providers: [
        { provide: COORDINATOR_SETTINGS, useValue: settings },
        { provide: SAGA_REGISTRY, useValue: registry },
        CoordinatorService,
      ],
    };
  }
}
