import { z } from 'zod';
import { PRIORITY_VIDEO_LANE, VIDEO_LANE } from '../lanes.js';
import { defineCommand, defineEvent } from '../message-definition.js';
import { problemSignature, solutionProvenance } from './problem.js';

export const assetType = z.enum(['solution_html', 'video']);

export const RegisterSolution = defineCommand(
  'assets',
  'RegisterSolution',
  1,
  z.object({
    runId: z.uuid(),
    signature: problemSignature,
    storageKey: z.string(),
    contentSha256: z.string().regex(/^[0-9a-f]{64}$/),
    provenance: solutionProvenance,
  }),
  'Get-or-create the problem by signature and add a solution_html asset version; answers ProblemRegistered and AssetVersionCreated.',
);

export const ProblemRegistered = defineEvent(
  'asset',
  'ProblemRegistered',
  1,
  z.object({ runId: z.uuid(), commandId: z.string(), problemId: z.uuid(), created: z.boolean() }),
  'The problem exists in the registry (created now or found by signature).',
);

export const AssetVersionCreated = defineEvent(
  'asset',
  'AssetVersionCreated',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    problemId: z.uuid(),
    assetVersionId: z.uuid(),
    assetType,
    version: z.int().positive(),
    storageKey: z.string(),
    contentType: z.string(),
  }),
  'A new asset version (solution HTML or video) is registered.',
);

const renderVideoRequest = z.object({ runId: z.uuid(), problemId: z.uuid(), solutionAssetVersionId: z.uuid(), mode: z.enum(['async', 'sync']) });

export const RenderVideo = defineCommand(
  'assets',
  'RenderVideo',
  1,
  renderVideoRequest,
  "Render an MP4 of a solution's steps and register it as a video asset version (background lane `video`).",
  { lane: VIDEO_LANE },
);

export const RenderPriorityVideo = defineCommand(
  'assets',
  'RenderPriorityVideo',
  1,
  renderVideoRequest,
  'RenderVideo for a policy with `video_generation: sync`: the same work and replies, on the `priorityvideo` lane, ahead of background renders.',
  { lane: PRIORITY_VIDEO_LANE },
);

export const VideoRendered = defineEvent(
  'asset',
  'VideoRendered',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    solutionAssetVersionId: z.uuid(),
    videoAssetVersionId: z.uuid(),
    storageKey: z.string(),
    durationMs: z.int().nonnegative(),
  }),
  'A solution video is rendered and registered.',
);

export const VideoRenderFailed = defineEvent(
  'asset',
  'VideoRenderFailed',
  1,
  z.object({ runId: z.uuid(), commandId: z.string(), solutionAssetVersionId: z.uuid(), retryable: z.boolean(), detail: z.string() }),
  'A video render attempt failed.',
);
