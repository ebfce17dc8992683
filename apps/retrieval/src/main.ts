import { bootstrapService } from '@openpaw/platform';
import { RetrievalModule, SERVICE_NAME } from './app.module.js';
import { retrievalSettingsFromEnv } from './config.js';

await bootstrapService({ name: SERVICE_NAME, module: RetrievalModule.forRoot(retrievalSettingsFromEnv()), defaultPort: 3102 });
