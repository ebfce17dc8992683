import { bootstrapService } from '@openpaw/platform';
import { SolveModule, SERVICE_NAME } from './app.module.js';
import { solveSettingsFromEnv } from './config.js';

await bootstrapService({ name: SERVICE_NAME, module: SolveModule.forRoot(solveSettingsFromEnv()), defaultPort: 3103 });
