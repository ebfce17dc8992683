import { bootstrapService } from '@openpaw/platform';
import { AssetsModule, SERVICE_NAME } from './app.module.js';

await bootstrapService({ name: SERVICE_NAME, module: AssetsModule, defaultPort: 3104 });
