import { bootstrapService } from '@openpaw/platform';
import { ArtifactsModule, SERVICE_NAME } from './app.module.js';
import { artifactsSettingsFromEnv } from './config.js';

await bootstrapService({ name: SERVICE_NAME, module: ArtifactsModule.forRoot(artifactsSettingsFromEnv()), defaultPort: 3105 });
