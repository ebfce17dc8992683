import { bootstrapService } from '@openpaw/platform';
import { VisualSearchModule, SERVICE_NAME } from './app.module.js';

await bootstrapService({ name: SERVICE_NAME, module: VisualSearchModule.forRoot(), defaultPort: 3107 });
