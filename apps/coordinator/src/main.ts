import { bootstrapService } from '@openpaw/platform';
import { CoordinatorModule, SERVICE_NAME } from './app.module.js';
import { coordinatorSettingsFromEnv } from './config.js';
import { productionRegistry } from './workflows/index.js';

const settings = coordinatorSettingsFromEnv();
await bootstrapService({
  name: SERVICE_NAME,
  module: CoordinatorModule.forRoot(settings, productionRegistry(settings.workflows)),
  defaultPort: 3001,
});
