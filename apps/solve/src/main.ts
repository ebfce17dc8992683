import { bootstrapService } from '@openpaw/platform';
import { SolveModule, SERVICE_NAME } from './app.module.js';
import { solveSettingsFromEnv } from './config.js';

const settings = solveSettingsFromEnv();
await bootstrapService({ name: SERVICE_NAME, module: SolveModule.forRoot(settings), defaultPort: 3103, databaseUrl: settings.databaseUrl });
