import { deterministicUuid, type ProblemSignature } from '@openpaw/contracts';
import type { AssetType } from '../ports.js';

export const SOLUTION_HTML_CONTENT_TYPE = 'text/html; charset=utf-8';
export const VIDEO_CONTENT_TYPE = 'video/mp4';

/**
 * The identity of a problem: its normalised text's sha256 (`text:<sha256>`) when it has text, else
 * its normalised image's sha256 (`image:<sha256>`). Text wins because two photos of the same problem
 * differ in bytes but not in text; an image with no text at all can only be known by its bytes.
 */
export function signatureKeyOf(signature: ProblemSignature): string {
  if (signature.normalizedText.trim() !== '') return `text:${signature.textSha256}`;
  if (signature.imageSha256 !== undefined) return `image:${signature.imageSha256}`;
  throw new Error('the problem signature has neither normalised text nor an image hash');
}

/** Problem ids follow from the signature key: the same problem has the same id in every environment. */
export function problemIdFor(signatureKey: string): string {
  return deterministicUuid('assets.problem', signatureKey);
}

/** A run has at most one version of each asset type; its id follows from both. */
export function assetVersionIdFor(runId: string, assetType: AssetType): string {
  return deterministicUuid('assets.asset-version', runId, assetType);
}

/** Versions count per problem and asset type, from 1. */
export function nextVersion(latest: number | null | undefined): number {
  if (latest === null || latest === undefined) return 1;
  if (!Number.isInteger(latest) || latest < 1) throw new Error(`invalid latest version ${latest}`);
  return latest + 1;
}

/** Where the video of a solution asset version is stored. */
export function videoKeyFor(solutionAssetVersionId: string): string {
  return `videos/${solutionAssetVersionId}.mp4`;
}
