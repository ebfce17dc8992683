import { bootstrapService, settingCheck } from '@openpaw/platform';
import { assertBlobStoreUsable } from '@openpaw/providers/blob';
import { VisualSearchModule, SERVICE_NAME } from './app.module.js';
import { visualSearchSettingsFromEnv } from './config.js';

// Settings are read while the port answers the probes: invalid ones keep the service alive and not ready, naming the variable.
await bootstrapService({
  name: SERVICE_NAME,
  defaultPort: 3107,
  settings: () => visualSearchSettingsFromEnv(),
  app: (settings) => ({ module: VisualSearchModule.forRoot(settings), startupChecks: [settingCheck(() => assertBlobStoreUsable(settings.providerEnv), () => settings.providerEnv)] }),
});
