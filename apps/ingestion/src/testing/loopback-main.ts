/**
 * TEST-ONLY entrypoint: the ingestion service as `main.ts` starts it, except that problem URLs on
 * 127.0.0.1 may be fetched (end-to-end suites serve pages from local wire servers). No variable of the
 * production config turns the SSRF guard off; the image does not ship `testing/` (see Dockerfile).
 */
import { bootstrapService } from '@openpaw/platform';
import { IngestionModule, SERVICE_NAME } from '../app.module.js';
import { ingestionSettingsFromEnv } from '../config.js';

await bootstrapService({
  name: SERVICE_NAME,
  defaultPort: 3101,
  settings: () => ingestionSettingsFromEnv(),
  app: (settings) => ({ module: IngestionModule.forRoot({ ...settings, fetch: { ...settings.fetch, allowAddressClasses: ['loopback'] } }), databaseUrl: settings.databaseUrl }),
});
