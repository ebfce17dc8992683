import { bootstrapService } from '@openpaw/platform';
import { ArtifactsModule, SERVICE_NAME } from './app.module.js';
import { artifactsSettingsFromEnv } from './config.js';

const settings = artifactsSettingsFromEnv();
await bootstrapService({ name: SERVICE_NAME, module: ArtifactsModule.forRoot(settings), defaultPort: 3105, databaseUrl: settings.databaseUrl });
