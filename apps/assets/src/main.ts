import { bootstrapService } from '@openpaw/platform';
import { AssetsModule, SERVICE_NAME } from './app.module.js';
import { assetsSettingsFromEnv } from './config.js';

await bootstrapService({ name: SERVICE_NAME, module: AssetsModule.forRoot(assetsSettingsFromEnv()), defaultPort: 3104 });
