import { bootstrapService } from '@openpaw/platform';
import { AssetsModule, SERVICE_NAME } from './app.module.js';
import { assetsSettingsFromEnv } from './config.js';

const settings = assetsSettingsFromEnv();
await bootstrapService({ name: SERVICE_NAME, module: AssetsModule.forRoot(settings), defaultPort: 3104, databaseUrl: settings.databaseUrl });
