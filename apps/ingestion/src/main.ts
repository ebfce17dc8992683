import { bootstrapService } from '@openpaw/platform';
import { IngestionModule, SERVICE_NAME } from './app.module.js';
import { ingestionSettingsFromEnv } from './config.js';

await bootstrapService({ name: SERVICE_NAME, module: IngestionModule.forRoot(ingestionSettingsFromEnv()), defaultPort: 3101 });
