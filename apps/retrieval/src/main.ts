import { bootstrapService } from '@openpaw/platform';
import { RetrievalModule, SERVICE_NAME } from './app.module.js';
import { retrievalSettingsFromEnv } from './config.js';

const settings = retrievalSettingsFromEnv();
await bootstrapService({ name: SERVICE_NAME, module: RetrievalModule.forRoot(settings), defaultPort: 3102, databaseUrl: settings.databaseUrl });
