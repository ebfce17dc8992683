/**
 * TEST-ONLY entrypoint: the visual-search service as `main.ts` starts it, except that images on
 * 127.0.0.1 may be fetched (end-to-end suites host them on local wire servers). No variable of the
 * production config turns the SSRF guard off; the image does not ship `testing/`.
 */
import { bootstrapService } from '@openpaw/platform';
import { VisualSearchModule, SERVICE_NAME } from '../app.module.js';
import { visualSearchSettingsFromEnv } from '../config.js';

await bootstrapService({
  name: SERVICE_NAME,
  defaultPort: 3107,
  settings: () => visualSearchSettingsFromEnv(),
  app: (settings) => ({ module: VisualSearchModule.forRoot({ ...settings, allowLoopbackImageHosts: true }) }),
});
