import { bootstrapService } from '@openpaw/platform';
import { GatewayModule, GATEWAY_SERVICE } from './app.module.js';
import { gatewayConfigFromEnv } from './config.js';
import { configureGateway } from './configure.js';

await bootstrapService({
  name: GATEWAY_SERVICE,
  module: GatewayModule.forRoot(gatewayConfigFromEnv()),
  defaultPort: 3000,
  configure: configureGateway,
});
