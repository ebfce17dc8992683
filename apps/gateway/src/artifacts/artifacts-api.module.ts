import { Module } from '@nestjs/common';
import { MESSAGE_PUBLISHER } from '@openpaw/messaging';
import { COMMAND_PUBLISHER } from '../runs/ports.js';
import { AnswerChatHandler } from './chat/answer-chat.handler.js';
import { ChatController } from './chat/chat.controller.js';
import { ARTIFACTS_API_CONFIG, artifactsApiConfigFromEnv } from './config.js';
import { GatewayHost } from './gateway-host.js';
import { CreateArtifactJobHandler } from './jobs/create-artifact-job.handler.js';
import { ArtifactReplies } from './replies/artifact-replies.js';
import { AddSourceHandler } from './sources/add-source.handler.js';
import { SourcesController } from './sources/sources.controller.js';
import { SourceUploadInterceptor } from './sources/source-upload.interceptor.js';

/**
 * Spec 02 in the gateway: `POST /ai/chat` (intent router → artifact job or grounded chat),
 * `GET /ai/artifact/:id`, and notebook sources (`POST /notebooks/:id/sources`, `PUT .../:sourceId`).
 * Imported by `GatewayModule`; uses its `RunSubmitter` and run projection through `GatewayHost`.
 */
@Module({
  controllers: [ChatController, SourcesController],
  providers: [
    { provide: ARTIFACTS_API_CONFIG, useFactory: () => artifactsApiConfigFromEnv() },
    { provide: COMMAND_PUBLISHER, useExisting: MESSAGE_PUBLISHER },
    GatewayHost,
    ArtifactReplies,
    CreateArtifactJobHandler,
    AnswerChatHandler,
    AddSourceHandler,
    SourceUploadInterceptor,
  ],
})
export class ArtifactsApiModule {}
