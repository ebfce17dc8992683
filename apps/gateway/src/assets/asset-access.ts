import { hasErrorCode } from '@openpaw/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { BlobStore } from '@openpaw/providers/blob';
import { type RunProjection, RunProjectionStore } from '../projection/run-projection.store.js';
import { pollUntil } from '../projection/poll-until.js';
import { solutionAssetIdOf, videoPendingOf } from '../problems/workflow-result.js';
import { BLOB_STORE } from './blobs/blob-store.provider.js';
import { type AssetRecord, AssetProjectionStore } from './projection/asset-projection.store.js';

/** How long a finished run's solution waits for the asset projection to show it. */
const ASSET_CATCH_UP_MS = 2_000;

export type RunSolution =
  | { readonly kind: 'notFound' }
  /** The run has no solution yet (running), or the asset projection has not caught up with it. */
  | { readonly kind: 'pending'; readonly run: RunProjection }
  /** The run ended without a solution (failed, cancelled). */
  | { readonly kind: 'none'; readonly run: RunProjection }
  | { readonly kind: 'ready'; readonly run: RunProjection; readonly asset: AssetRecord };

export type RunVideo =
  | { readonly kind: 'notFound' }
  | { readonly kind: 'missing'; readonly videoPending: boolean }
  | { readonly kind: 'ready'; readonly asset: AssetRecord };

/**
 * Which assets a user may see, from the gateway's own projections only: an asset is visible to
 * the user whose run produced it and to every user with a run that was served it (the run's
 * `output.asset_version_id`); a video is visible with its solution. Anything else is "not found".
 */
@Injectable()
export class AssetAccess {
  constructor(
    private readonly assets: AssetProjectionStore,
    private readonly runs: RunProjectionStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  async visibleAsset(assetVersionId: string, userId: string): Promise<AssetRecord | undefined> {
    const asset = await this.assets.find(assetVersionId);
    if (asset === undefined) return undefined;
    if (await this.assets.directlyVisible(asset, userId)) return asset;
    if (asset.assetType === 'video') {
      for (const solution of await this.assets.solutionsOfVideo(asset)) {
        if (await this.assets.directlyVisible(solution, userId)) return asset;
      }
    }
    return undefined;
  }

  /** The newest video of a solution, if one is rendered. */
  videoOf(solution: AssetRecord): Promise<AssetRecord | undefined> {
    return this.assets.videoOf(solution);
  }

  /** The asset's bytes, or `undefined` when the blob is gone. */
  async content(asset: AssetRecord): Promise<Buffer | undefined> {
    try {
      return (await this.blobs.get(asset.storageKey)).body;
    } catch (error) {
      if (hasErrorCode(error, 'blob_not_found')) return undefined;
      throw error;
    }
  }

  async runSolution(runId: string, userId: string): Promise<RunSolution> {
    const run = await this.runs.findForUser(runId, userId);
    if (run === undefined) return { kind: 'notFound' };
    const assetId = solutionAssetIdOf(run.view);
    if (assetId === undefined) return run.terminal ? { kind: 'none', run } : { kind: 'pending', run };
    // The asset's own projection may trail the run's by a moment; an ended run's asset is waited for briefly.
    const asset = run.terminal ? await pollUntil(() => this.assets.find(assetId), (found) => found !== undefined, ASSET_CATCH_UP_MS) : await this.assets.find(assetId);
    return asset === undefined ? { kind: 'pending', run } : { kind: 'ready', run, asset };
  }

  async runVideo(runId: string, userId: string): Promise<RunVideo> {
    const solution = await this.runSolution(runId, userId);
    switch (solution.kind) {
      case 'notFound':
        return solution;
      case 'pending':
        // No solution yet, so no video yet; whether one will follow is known once the run ends.
        return { kind: 'missing', videoPending: !solution.run.terminal || videoPendingOf(solution.run.view) };
      case 'none':
        return { kind: 'missing', videoPending: false };
      case 'ready': {
        const video = await this.assets.videoOf(solution.asset);
        return video === undefined ? { kind: 'missing', videoPending: videoPendingOf(solution.run.view) } : { kind: 'ready', asset: video };
      }
    }
  }
}
