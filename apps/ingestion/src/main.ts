import { bootstrapService } from '@openpaw/platform';
import { IngestionModule, SERVICE_NAME } from './app.module.js';

await bootstrapService({ name: SERVICE_NAME, module: IngestionModule, defaultPort: 3101 });
