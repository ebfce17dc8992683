/**
 * TEST-ONLY entrypoint: the research service as `main.ts` starts it, except that webhooks may be
 * delivered to loopback and private addresses (end-to-end suites receive them on 127.0.0.1). No
 * variable of the production config turns the SSRF guard off; the image does not ship `testing/`.
 */
import { bootstrapService } from '@openpaw/platform';
import { ResearchModule, SERVICE_NAME } from '../app.module.js';
import { researchSettingsFromEnv } from '../config.js';

await bootstrapService({
  name: SERVICE_NAME,
  defaultPort: 3106,
  settings: () => researchSettingsFromEnv(),
  app: (settings) => ({
    module: ResearchModule.forRoot({ ...settings, flow: { ...settings.flow, webhook: { ...settings.flow.webhook, allowPrivateAddresses: true } } }),
    databaseUrl: settings.databaseUrl,
  }),
});
