import { bootstrapService, settingCheck } from '@openpaw/platform';
import { assertBlobStoreUsable } from '@openpaw/providers/blob';
import { ArtifactsModule, SERVICE_NAME } from './app.module.js';
import { artifactsSettingsFromEnv } from './config.js';

// Settings are read while the port answers the probes: invalid ones keep the service alive and not ready, naming the variable.
await bootstrapService({
  name: SERVICE_NAME,
  defaultPort: 3105,
  settings: () => artifactsSettingsFromEnv(),
  app: (settings) => ({ module: ArtifactsModule.forRoot(settings), databaseUrl: settings.databaseUrl, startupChecks: [settingCheck(() => assertBlobStoreUsable(settings.providerEnv), () => settings.providerEnv)] }),
});
