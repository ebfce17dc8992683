import { Module } from '@nestjs/common';
import { PlatformModule, ServiceMessagingModule } from '@openpaw/platform';

export const SERVICE_NAME = 'artifacts';

/**
 * The artifacts service: logs, probes and metrics from the platform; JetStream through messaging, which
 * consumes `openpaw.cmd.artifacts.>` with the `@OnMessage` handlers of the providers added here.
 */
@Module({
  imports: [PlatformModule.forService(SERVICE_NAME), ServiceMessagingModule.forService(SERVICE_NAME)],
})
export class ArtifactsModule {}
