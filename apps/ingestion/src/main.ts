import { bootstrapService } from '@openpaw/platform';
import { IngestionModule, SERVICE_NAME } from './app.module.js';
import { ingestionSettingsFromEnv } from './config.js';

const settings = ingestionSettingsFromEnv();
await bootstrapService({ name: SERVICE_NAME, module: IngestionModule.forRoot(settings), defaultPort: 3101, databaseUrl: settings.databaseUrl });
