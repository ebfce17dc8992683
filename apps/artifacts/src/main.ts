import { bootstrapService } from '@openpaw/platform';
import { ArtifactsModule, SERVICE_NAME } from './app.module.js';

await bootstrapService({ name: SERVICE_NAME, module: ArtifactsModule, defaultPort: 3105 });
