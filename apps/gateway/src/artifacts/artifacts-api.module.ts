import { type DynamicModule, Module } from '@nestjs/common';
import { AnswerChatHandler } from './chat/answer-chat.handler.js';
import { ChatController } from './chat/chat.controller.js';
import { ARTIFACTS_API_CONFIG, type ArtifactsApiConfig } from './config.js';
import { ArtifactJobKeys } from './jobs/artifact-job-keys.js';
import { CreateArtifactJobHandler } from './jobs/create-artifact-job.handler.js';
import { DatabaseClock } from './jobs/database-clock.js';
import { SnapshotCapture } from './jobs/snapshot-capture.js';
import { ArtifactReplies } from './replies/artifact-replies.js';
import { AddSourceHandler } from './sources/add-source.handler.js';
import { SourcesController } from './sources/sources.controller.js';
import { SourceUploadInterceptor } from './sources/source-upload.interceptor.js';

/**
 * Spec 02 in the gateway: `POST /ai/chat` (intent router → artifact job or grounded chat),
 * `GET /ai/artifact/:id`, and notebook sources (`POST /notebooks/:id/sources`, `PUT .../:sourceId`).
 * Imported by `GatewayModule`; builds on `RunsModule` (run submission, projection, config, blobs).
 */
@Module({})
export class ArtifactsApiModule {
  /** `config`: the gateway's `artifactsApi` settings, read once at start. */
  static forRoot(config: ArtifactsApiConfig): DynamicModule {
    return {
      module: ArtifactsApiModule,
      controllers: [ChatController, SourcesController],
      providers: [
        { provide: ARTIFACTS_API_CONFIG, useValue: config },
        ArtifactReplies,
        CreateArtifactJobHandler,
        ArtifactJobKeys,
        DatabaseClock,
        SnapshotCapture,
        AnswerChatHandler,
        AddSourceHandler,
        SourceUploadInterceptor,
      ],
    };
  }
}
