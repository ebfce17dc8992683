import { bootstrapService } from '@openpaw/platform';
import { CoordinatorModule, SERVICE_NAME } from './app.module.js';
import { coordinatorSettingsFromEnv } from './config.js';
import { productionRegistry } from './workflows/index.js';

// The one place the coordinator reads its environment: validated here, then passed down.
const settings = coordinatorSettingsFromEnv(process.env);
await bootstrapService({
  name: SERVICE_NAME,
  module: CoordinatorModule.forRoot(settings, productionRegistry(settings.workflows)),
  defaultPort: 3001,
  databaseUrl: settings.databaseUrl,
});
