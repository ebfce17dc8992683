import { bootstrapService } from '@openpaw/platform';
import { RetrievalModule, SERVICE_NAME } from './app.module.js';

await bootstrapService({ name: SERVICE_NAME, module: RetrievalModule, defaultPort: 3102 });
