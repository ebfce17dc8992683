import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type StepsDocument } from '@openpaw/contracts';
import { join } from 'node:path';
import type { VideoSettings } from '../config.js';
import type { RenderedVideo, VideoRenderer } from '../ports.js';
import { detectEncoder, runFfmpeg, slideshowArgs, type VideoEncoder } from './ffmpeg.js';
import { FRAME_HEIGHT, FRAME_WIDTH, framesFor, renderFrame } from './frame-renderer.js';

export const SLIDESHOW_RENDERER = 'openpaw-assets/slideshow-v1';
const FPS = 25;

/**
 * A solution video as a slideshow: a frame for the problem, one per step and one for the final
 * answer, drawn with sharp and encoded by ffmpeg into an MP4 (H.264 where available), each frame held
 * `secondsPerFrame`. Works in a temporary directory of its own, removed afterwards; at most
 * `maxConcurrentRenders` renders run at once.
 */
export class SlideshowVideoRenderer implements VideoRenderer {
  private encoder: Promise<VideoEncoder> | undefined;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** Renders of the priority lane (`video_generation: sync`) waiting: they take the next free slot first. */
  private readonly waitingPriority: (() => void)[] = [];

  constructor(private readonly settings: VideoSettings) {}

  async render(steps: StepsDocument, options: { readonly priority?: boolean } = {}): Promise<RenderedVideo> {
    await this.acquire(options.priority ?? false);
    let dir: string | undefined;
    try {
      dir = await mkdtemp(join(this.settings.workDir, 'openpaw-video-'));
      const frames = framesFor(steps);
      for (const [i, frame] of frames.entries()) {
        await writeFile(join(dir, `frame-${String(i + 1).padStart(4, '0')}.png`), await renderFrame(frame));
      }
      const encoder = await this.encoderToUse();
      const output = join(dir, 'video.mp4');
      const args = slideshowArgs({ framePattern: join(dir, 'frame-%04d.png'), secondsPerFrame: this.settings.secondsPerFrame, fps: FPS, encoder, output });
      const result = await runFfmpeg(this.settings.ffmpegPath, args, this.settings.encodeTimeoutMs);
      if (result.code !== 0) throw new Error(`ffmpeg failed (${result.code ?? result.signal}): ${result.stderrTail}`);
      return {
        bytes: await readFile(output),
        contentType: 'video/mp4',
        durationMs: Math.round(frames.length * this.settings.secondsPerFrame * 1000),
        frameCount: frames.length,
        width: FRAME_WIDTH,
        height: FRAME_HEIGHT,
        fps: FPS,
        encoder,
        renderer: SLIDESHOW_RENDERER,
      };
    } finally {
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
      this.release();
    }
  }

  private encoderToUse(): Promise<VideoEncoder> {
    if (this.settings.encoder !== undefined) return Promise.resolve(this.settings.encoder);
    this.encoder ??= detectEncoder(this.settings.ffmpegPath).catch((error: unknown) => {
      this.encoder = undefined; // look again next time
      throw error;
    });
    return this.encoder;
  }

  private async acquire(priority: boolean): Promise<void> {
    if (this.running < this.settings.maxConcurrentRenders) {
      this.running++;
      return;
    }
    await new Promise<void>((resolve) => (priority ? this.waitingPriority : this.waiting).push(resolve));
  }

  private release(): void {
    const next = this.waitingPriority.shift() ?? this.waiting.shift();
    if (next !== undefined) next(); // the slot passes to the next render
    else this.running--;
  }
}
