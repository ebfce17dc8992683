import { bootstrapService } from '@openpaw/platform';
import { GatewayModule, GATEWAY_SERVICE } from './app.module.js';
import { gatewayConfigFromEnv } from './config.js';
import { configureGateway } from './configure.js';

const config = gatewayConfigFromEnv();
await bootstrapService({
  name: GATEWAY_SERVICE,
  module: GatewayModule.forRoot(config),
  databaseUrl: config.databaseUrl,
  defaultPort: 3000,
  configure: configureGateway,
});
