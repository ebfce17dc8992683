import { bootstrapService } from '@openpaw/platform';
import { ResearchModule, SERVICE_NAME } from './app.module.js';
import { researchSettingsFromEnv } from './config.js';

const settings = researchSettingsFromEnv();
await bootstrapService({ name: SERVICE_NAME, module: ResearchModule.forRoot(settings), defaultPort: 3106, databaseUrl: settings.databaseUrl });
