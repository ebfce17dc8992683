import { bootstrapService } from '@openpaw/platform';
import { ResearchModule, SERVICE_NAME } from './app.module.js';

await bootstrapService({ name: SERVICE_NAME, module: ResearchModule, defaultPort: 3106 });
