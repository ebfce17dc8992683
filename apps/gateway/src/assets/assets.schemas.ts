import { z } from 'zod';
import type { AssetRecord } from './projection/asset-projection.store.js';

/** `/assets/:assetVersionId` */
export const assetIdParams = z.object({ assetVersionId: z.uuid() });

/** Longest share link: 7 days (the most a GCS V4 signed URL allows). */
export const MAX_SHARE_SECONDS = 7 * 24 * 3600;

const shareBodyObject = z.object({
  expires_in_seconds: z
    .int()
    .min(1)
    .max(MAX_SHARE_SECONDS)
    .default(3600)
    .describe(`How long the link works, in seconds (1..${MAX_SHARE_SECONDS}; default 3600).`),
});
/** `POST /assets/:assetVersionId/share` body; an empty body is an empty object. */
export const shareBody = z.preprocess((value) => value ?? {}, shareBodyObject);
export const shareBodyDoc = shareBodyObject;

export const shareLink = z.object({
  asset_version_id: z.uuid(),
  url: z.string().describe('Anyone holding it can GET the content until it expires; no token needed.'),
  expires_at: z.iso.datetime({ offset: true }),
});

/** `/v1/shared/:token` */
export const sharedTokenParams = z.object({ token: z.string().min(1).max(4096) });

/** An asset version's metadata. */
export const assetResource = z.object({
  asset_version_id: z.uuid(),
  problem_id: z.uuid().nullable(),
  asset_type: z.string().describe('`solution_html` or `video`.'),
  version: z.int().positive().nullable().describe("The version number among the problem's assets of this type."),
  content_type: z.string(),
  storage_key: z.string().describe('Where the content lives in blob storage (shared with the other services).'),
  created_at: z.iso.datetime({ offset: true }),
  content_url: z.string().describe('Path of the content (`GET`, bearer token).'),
  solution_asset_version_id: z.uuid().nullable().optional().describe('For a video: the solution it renders.'),
  video_asset_version_id: z.uuid().nullable().optional().describe('For a solution: its newest rendered video, if any.'),
  duration_ms: z.int().nonnegative().nullable().optional().describe('For a video: its length.'),
});
export type AssetResource = z.infer<typeof assetResource>;

/** A 404 of `/runs/:id/solution` or `/runs/:id/video` saying why there is nothing (yet). */
export const missingContentBody = z.object({
  error: z.enum(['not_found', 'solution_pending', 'no_solution', 'video_pending', 'no_video']),
  message: z.string(),
  state: z.string().optional(),
  video_pending: z.boolean().optional(),
});

export function contentPathOf(assetVersionId: string): string {
  return `/assets/${assetVersionId}/content`;
}

export function toAssetResource(asset: AssetRecord, video?: AssetRecord): AssetResource {
  return {
    asset_version_id: asset.assetVersionId,
    problem_id: asset.problemId,
    asset_type: asset.assetType,
    version: asset.version,
    content_type: asset.contentType,
    storage_key: asset.storageKey,
    created_at: asset.createdAt.toISOString(),
    content_url: contentPathOf(asset.assetVersionId),
    ...(asset.assetType === 'video'
      ? { solution_asset_version_id: asset.solutionAssetVersionId, duration_ms: asset.durationMs }
      : { video_asset_version_id: video?.assetVersionId ?? null }),
  };
}
