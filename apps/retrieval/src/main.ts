import { bootstrapService } from '@openpaw/platform';
import { RetrievalModule, SERVICE_NAME } from './app.module.js';
import { retrievalSettingsFromEnv } from './config.js';

// Settings are read while the port answers the probes: invalid ones keep the service alive and not ready, naming the variable.
await bootstrapService({
  name: SERVICE_NAME,
  defaultPort: 3102,
  settings: () => retrievalSettingsFromEnv(),
  app: (settings) => ({ module: RetrievalModule.forRoot(settings), databaseUrl: settings.databaseUrl }),
});
