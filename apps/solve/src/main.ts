import { bootstrapService } from '@openpaw/platform';
import { SolveModule, SERVICE_NAME } from './app.module.js';

await bootstrapService({ name: SERVICE_NAME, module: SolveModule, defaultPort: 3103 });
