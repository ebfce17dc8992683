import { Module } from '@nestjs/common';
import { ResearchRuns } from './handlers/research-runs.js';
import { ProviderKeys } from './keys/provider-keys.js';
import { ProviderKeysController } from './provider-keys.controller.js';
import { ResearchController } from './research.controller.js';

/**
 * Spec 05 in the gateway: `POST /research/draft`, `POST /research`, `GET /research/:id`,
 * `POST /research/:id/confirm`, `POST /research/:id/retry`, and the caller's provider keys
 * (`/research/keys`). Imported by `GatewayModule`; builds on `RunsModule` (projection, run
 * submission, live events, config).
 */
@Module({
  controllers: [ProviderKeysController, ResearchController],
  providers: [ResearchRuns, ProviderKeys],
})
export class ResearchApiModule {}
