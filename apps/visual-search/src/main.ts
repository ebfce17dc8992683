import { bootstrapService } from '@openpaw/platform';
import { VisualSearchModule, SERVICE_NAME } from './app.module.js';
import { visualSearchSettingsFromEnv } from './config.js';

await bootstrapService({ name: SERVICE_NAME, module: VisualSearchModule.forRoot(visualSearchSettingsFromEnv()), defaultPort: 3107 });
