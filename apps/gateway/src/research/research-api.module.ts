import type { Provider, Type } from '@nestjs/common';
import { ResearchRuns } from './handlers/research-runs.js';
import { ProviderKeys } from './keys/provider-keys.js';
import { ProviderKeysController } from './provider-keys.controller.js';
import { ResearchController } from './research.controller.js';

/**
 * Spec 05 in the gateway: `POST /research/draft`, `POST /research`, `GET /research/:id`,
 * `POST /research/:id/confirm`, `POST /research/:id/retry`, and the caller's provider keys
 * (`/research/keys`). Registered in `GatewayModule` itself (not a module of its own), because
 * starting a research goes through the gateway's one `AdmissionControl` (its token buckets are per
 * process); builds on `RunsModule` (projection, run submission, live events, config).
 */
export const RESEARCH_API_CONTROLLERS: readonly Type[] = [ProviderKeysController, ResearchController];
export const RESEARCH_API_PROVIDERS: readonly Provider[] = [ResearchRuns, ProviderKeys];
