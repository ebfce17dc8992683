import { bootstrapService } from '@openpaw/platform';
import { ResearchModule, SERVICE_NAME } from './app.module.js';
import { researchSettingsFromEnv } from './config.js';

await bootstrapService({ name: SERVICE_NAME, module: ResearchModule.forRoot(researchSettingsFromEnv()), defaultPort: 3106 });
