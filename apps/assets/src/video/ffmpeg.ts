import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';

export type VideoEncoder = 'libx264' | 'mpeg4';

export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  /** The last 4 KiB of stderr, for error messages. */
  readonly stderrTail: string;
}

/**
 * Encoding is background work: on a shared machine it must not take CPU from critical-path steps, so
 * the encoder runs at the lowest scheduling priority (the kernel gives it what others leave).
 */
const BACKGROUND_NICENESS = 19;

function lowerPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    setPriority(pid, BACKGROUND_NICENESS);
  } catch {
    // Not permitted here (some sandboxes): the lane's concurrency still bounds it.
  }
}

/** Runs ffmpeg with an argument array (never a shell), killing it at `timeoutMs`. */
export function runFfmpeg(ffmpegPath: string, args: readonly string[], timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegPath, [...args], { stdio: ['ignore', 'pipe', 'pipe'], shell: false, windowsHide: true });
    lowerPriority(child.pid);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < 1_000_000) stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4096);
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`could not run ${ffmpegPath}: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) reject(new Error(`${ffmpegPath} did not finish within ${timeoutMs} ms`));
      else resolve({ code, signal, stdout, stderrTail: stderr.trim() });
    });
  });
}

/** libx264 when this ffmpeg build has it, else the built-in MPEG-4 part 2 encoder. */
export async function detectEncoder(ffmpegPath: string, timeoutMs = 10_000): Promise<VideoEncoder> {
  const result = await runFfmpeg(ffmpegPath, ['-hide_banner', '-encoders'], timeoutMs);
  if (result.code !== 0) throw new Error(`${ffmpegPath} -encoders failed (${result.code ?? result.signal}): ${result.stderrTail}`);
  return /^\s*V\S*\s+libx264\s/m.test(result.stdout) ? 'libx264' : 'mpeg4';
}

export interface SlideshowOptions {
  /** printf-style pattern of the numbered PNG frames, from 1 (`.../frame-%04d.png`). */
  readonly framePattern: string;
  readonly secondsPerFrame: number;
  /** Output frame rate (frames are repeated to it, for players that dislike very low rates). */
  readonly fps: number;
  readonly encoder: VideoEncoder;
  readonly output: string;
}

/** The ffmpeg arguments of a slideshow: each frame held `secondsPerFrame`, H.264 or MPEG-4 in MP4, yuv420p. */
export function slideshowArgs(options: SlideshowOptions): string[] {
  const codec = options.encoder === 'libx264' ? ['-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'stillimage', '-crf', '23'] : ['-c:v', 'mpeg4', '-q:v', '3'];
  return [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    '-y',
    '-framerate',
    `1/${options.secondsPerFrame}`,
    '-start_number',
    '1',
    '-i',
    options.framePattern,
    ...codec,
    '-r',
    String(options.fps),
    '-pix_fmt',
    'yuv420p',
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    options.output,
  ];
}
