import { bootstrapService } from '@openpaw/platform';
import { CoordinatorModule, SERVICE_NAME } from './app.module.js';
import { coordinatorSettingsFromEnv } from './config.js';
import { productionRegistry } from './workflows/index.js';

// The one place the coordinator reads its environment: validated while the port answers the probes
// (invalid settings keep it alive and not ready, naming the variable), then passed down.
await bootstrapService({
  name: SERVICE_NAME,
  defaultPort: 3001,
  settings: () => coordinatorSettingsFromEnv(process.env),
  app: (settings) => ({ module: CoordinatorModule.forRoot(settings, productionRegistry(settings.workflows)), databaseUrl: settings.databaseUrl }),
});
