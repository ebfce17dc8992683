import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AssetVersionCreated, type MessageData, type RenderVideo, type StepsDocument, stepsDocumentSchema, stepsKeyFor, VideoRendered, VideoRenderFailed, OpenPawError } from '@openpaw/contracts';
import { BlobNotFoundError, type BlobStore } from '@openpaw/providers';
import { type Reply, replyTo } from '@openpaw/messaging';
import { ASSET_REGISTRY, ASSETS_BLOBS, type AssetRegistry, type AssetVersionRecord, VIDEO_RENDERER, type VideoRenderer } from '../../ports.js';
import { VIDEO_CONTENT_TYPE, videoKeyFor } from '../../registry/registry-rules.js';

export interface RenderVideoCommand {
  readonly commandId: string;
  readonly data: MessageData<typeof RenderVideo>;
}

/** Why the video cannot be made from this command, whatever the number of tries. */
class PermanentFailure extends OpenPawError {
  readonly code = 'video_render_impossible';
}

/**
 * RenderVideo: read the solution's steps (the `.steps.json` the solve service stores beside the
 * HTML), draw and encode the video, store it as `videos/<solutionAssetVersionId>.mp4`, register a
 * video asset version (parent: the solution), answer VideoRendered + AssetVersionCreated.
 *
 * Failures answer VideoRenderFailed: not retryable when the solution or its steps are missing or
 * unusable, retryable when drawing or encoding failed. Replies are stored with the command, so a
 * redelivery republishes them without rendering again; a run has at most one video version.
 */
@Injectable()
export class RenderVideoHandler {
  constructor(
    @Inject(ASSET_REGISTRY) private readonly registry: AssetRegistry,
    @Inject(ASSETS_BLOBS) private readonly blobs: BlobStore,
    @Inject(VIDEO_RENDERER) private readonly renderer: VideoRenderer,
  ) {}

  async execute(command: RenderVideoCommand): Promise<readonly Reply[]> {
    const stored = await this.registry.repliesTo(command.commandId);
    if (stored !== undefined) return stored;
    const { data } = command;

    // Rendered by an earlier command of this run: answer from the registry, do not render again.
    const existing = await this.registry.findRunAsset(data.runId, 'video');
    if (existing !== undefined) return this.registry.saveReplies(command.commandId, renderedReplies(command, existing));

    let solution: AssetVersionRecord;
    let steps: StepsDocument;
    try {
      solution = await this.solutionOf(data);
      steps = await this.stepsOf(solution);
    } catch (error) {
      if (error instanceof PermanentFailure) return this.registry.saveReplies(command.commandId, [failedReply(command, false, error.message)]);
      throw error; // storage or database trouble: redelivery retries
    }

    let video;
    try {
      video = await this.renderer.render(steps, { priority: data.mode === 'sync' });
    } catch (error) {
      return this.registry.saveReplies(command.commandId, [failedReply(command, true, `rendering failed: ${(error as Error).message}`)]);
    }
    const storageKey = videoKeyFor(solution.id);
    await this.blobs.put(storageKey, video.bytes, {
      contentType: video.contentType,
      metadata: { runId: data.runId, solutionAssetVersionId: solution.id, durationMs: String(video.durationMs) },
    });
    return this.registry.registerVideo(
      command.commandId,
      {
        runId: data.runId,
        solution,
        storageKey,
        contentType: VIDEO_CONTENT_TYPE,
        contentSha256: createHash('sha256').update(video.bytes).digest('hex'),
        provenance: {
          renderer: video.renderer,
          encoder: video.encoder,
          durationMs: video.durationMs,
          frameCount: video.frameCount,
          width: video.width,
          height: video.height,
          fps: video.fps,
          stepsModel: steps.model,
          stepsPromptVersion: steps.promptVersion,
          solutionContentSha256: solution.contentSha256,
        },
      },
      (version) => renderedReplies(command, version),
    );
  }

  private async solutionOf(data: MessageData<typeof RenderVideo>): Promise<AssetVersionRecord> {
    const solution = await this.registry.findAssetVersion(data.solutionAssetVersionId);
    if (solution === undefined) throw new PermanentFailure(`no asset version ${data.solutionAssetVersionId}`);
    if (solution.assetType !== 'solution_html') throw new PermanentFailure(`asset version ${solution.id} is a ${solution.assetType}, not a solution_html`);
    if (solution.problemId !== data.problemId) throw new PermanentFailure(`asset version ${solution.id} belongs to problem ${solution.problemId}, not ${data.problemId}`);
    return solution;
  }

  private async stepsOf(solution: AssetVersionRecord): Promise<StepsDocument> {
    const key = stepsKeyFor(solution.storageKey);
    if (key === undefined) throw new PermanentFailure(`the solution ${solution.storageKey} is not an .html object with a steps document`);
    let body: Buffer;
    try {
      ({ body } = await this.blobs.get(key));
    } catch (error) {
      if (error instanceof BlobNotFoundError) throw new PermanentFailure(`the solution's steps document ${key} does not exist`);
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch (error) {
      throw new PermanentFailure(`the steps document ${key} is not JSON: ${(error as Error).message}`);
    }
    const parsed = stepsDocumentSchema.safeParse(json);
    if (!parsed.success) throw new PermanentFailure(`the steps document ${key} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return parsed.data;
  }
}

function renderedReplies(command: RenderVideoCommand, video: AssetVersionRecord): Reply[] {
  const durationMs = video.provenance['durationMs'];
  return [
    replyTo(command.commandId, VideoRendered, {
      runId: command.data.runId,
      commandId: command.commandId,
      solutionAssetVersionId: video.parentAssetVersionId ?? command.data.solutionAssetVersionId,
      videoAssetVersionId: video.id,
      storageKey: video.storageKey,
      durationMs: typeof durationMs === 'number' ? Math.round(durationMs) : 0,
    }),
    replyTo(command.commandId, AssetVersionCreated, {
      runId: command.data.runId,
      commandId: command.commandId,
      problemId: video.problemId,
      assetVersionId: video.id,
      assetType: video.assetType,
      version: video.version,
      storageKey: video.storageKey,
      contentType: video.contentType,
    }),
  ];
}

function failedReply(command: RenderVideoCommand, retryable: boolean, detail: string): Reply {
  return replyTo(command.commandId, VideoRenderFailed, {
    runId: command.data.runId,
    commandId: command.commandId,
    solutionAssetVersionId: command.data.solutionAssetVersionId,
    retryable,
    detail: detail.length <= 1000 ? detail : `${detail.slice(0, 999)}…`,
  });
}
