import { useEffect, useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { errorMessage } from '../api/resources.js';

/** How often to ask again while the video is being rendered (`video_pending`). */
const RENDERING_POLL_MS = 3000;

type VideoState = { readonly kind: 'loading' } | { readonly kind: 'pending' } | { readonly kind: 'none'; readonly message: string } | { readonly kind: 'ready'; readonly url: string } | { readonly kind: 'problem'; readonly message: string };

/**
 * The video of a run's solution (`GET /runs/{id}/video` with the session's token, played from a blob
 * URL): "being rendered" while the gateway answers `video_pending` (asked again every few seconds),
 * "no video" when none will come (`no_video`: sensitive content, rendering failed or switched off).
 */
export function SolutionVideo({ runId }: { runId: string }) {
  const client = useGatewayClient();
  const [video, setVideo] = useState<VideoState>({ kind: 'loading' });

  useEffect(() => {
    const abort = new AbortController();
    let url: string | undefined;
    void (async () => {
      while (!abort.signal.aborted) {
        const { data, error, response } = await client.GET('/runs/{id}/video', { params: { path: { id: runId } }, parseAs: 'blob', signal: abort.signal });
        if (data !== undefined) {
          url = URL.createObjectURL(data);
          setVideo({ kind: 'ready', url });
          return;
        }
        const code = (error as { error?: string } | undefined)?.error;
        if (response.status === 404 && (code === 'video_pending' || code === 'solution_pending')) {
          setVideo({ kind: 'pending' });
          await new Promise((resolve) => setTimeout(resolve, RENDERING_POLL_MS));
          continue;
        }
        setVideo(code === 'no_video' ? { kind: 'none', message: errorMessage(error, 'No video will be rendered.') } : { kind: 'problem', message: errorMessage(error, 'The video could not be read.') });
        return;
      }
    })().catch(() => undefined);
    return () => {
      abort.abort();
      if (url !== undefined) URL.revokeObjectURL(url);
    };
  }, [client, runId]);

  return (
    <section aria-labelledby="video-title">
      <h2 id="video-title">Video</h2>
      {video.kind === 'loading' && <p role="status">Loading the video…</p>}
      {video.kind === 'pending' && (
        <p role="status" data-video="pending">
          The video is being rendered; it plays here when ready.
        </p>
      )}
      {video.kind === 'none' && (
        <p data-video="none">
          No video for this solution: {video.message}
        </p>
      )}
      {video.kind === 'problem' && (
        <p class="error" role="alert">
          {video.message}
        </p>
      )}
      {video.kind === 'ready' && <video class="solution-video" data-video="ready" src={video.url} controls preload="metadata" aria-label="Video of the solution" />}
    </section>
  );
}
