import { bootstrapService, settingCheck } from '@openpaw/platform';
import { assertBlobStoreUsable } from '@openpaw/providers/blob';
import { GatewayModule, GATEWAY_SERVICE } from './app.module.js';
import { gatewayConfigFromEnv } from './config.js';
import { configureGateway } from './configure.js';

// Settings are read while the port answers the probes: a missing auth Secret key keeps the gateway alive and not ready, naming the variable.
await bootstrapService({
  name: GATEWAY_SERVICE,
  defaultPort: 3000,
  settings: () => gatewayConfigFromEnv(),
  app: (config) => ({ module: GatewayModule.forRoot(config), databaseUrl: config.databaseUrl, configure: configureGateway, startupChecks: [settingCheck(() => assertBlobStoreUsable(config.blobEnv), () => config.blobEnv)] }),
});
