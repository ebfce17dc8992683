import { bootstrapService, settingCheck } from '@openpaw/platform';
import { assertBlobStoreUsable } from '@openpaw/providers/blob';
import { AssetsModule, SERVICE_NAME } from './app.module.js';
import { assetsSettingsFromEnv } from './config.js';

// Settings are read while the port answers the probes: invalid ones keep the service alive and not ready, naming the variable.
await bootstrapService({
  name: SERVICE_NAME,
  defaultPort: 3104,
  settings: () => assetsSettingsFromEnv(),
  app: (settings) => ({ module: AssetsModule.forRoot(settings), databaseUrl: settings.databaseUrl, startupChecks: [settingCheck(() => assertBlobStoreUsable(settings.providerEnv), () => settings.providerEnv)] }),
});
