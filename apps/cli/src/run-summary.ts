import { access } from 'node:fs/promises';
import type { ApiClient, AssetMetadata, RunResource } from './api-client.js';
import { finalAnswerOf } from './final-answer.js';
import type { CliIo } from './io.js';
import { localBlobPath } from './local-blob-path.js';

function numberIn(view: Record<string, unknown>, key: string): number | undefined {
  const value = view[key];
  return typeof value === 'number' ? value : undefined;
}

/** The end of a run: state and outcome, cost, duration, error, and where the solution is. */
export async function printSummary(api: ApiClient, run: RunResource, io: CliIo, out: (line: string) => void): Promise<void> {
  const view = run.view;
  const output = (typeof view['output'] === 'object' && view['output'] !== null ? view['output'] : {}) as Record<string, unknown>;
  const outcome = typeof view['outcome'] === 'string' ? ` (outcome: ${view['outcome']})` : '';
  const approximate = output['is_approximate'] === true ? ', approximate: a near-miss solution' : '';
  out('');
  out(`${run.state}${outcome}${approximate}`);
  const cost = numberIn(view, 'cost_usd');
  const duration = numberIn(view, 'duration_ms');
  if (cost !== undefined) out(`cost:      $${cost.toFixed(4)}`);
  if (duration !== undefined) out(`duration:  ${(duration / 1000).toFixed(2)} s`);
  if (typeof view['error_code'] === 'string') out(`error:     ${view['error_code']}`);
  const assetId = typeof output['asset_version_id'] === 'string' ? output['asset_version_id'] : undefined;
  if (assetId === undefined) return;
  const answer = await solutionAnswer(api, run.runId);
  if (answer !== undefined) out(`answer:    ${answer}`);
  out(`solution:  ${api.url(`/runs/${run.runId}/solution`)}`);
  const asset = await assetMetadata(api, assetId, io);
  const path = asset === undefined ? undefined : localBlobPath(io.env, io.cwd, asset.storage_key);
  if (path !== undefined && (await access(path).then(() => true, () => false))) out(`file:      ${path}`);
  if (output['video_pending'] === true) out(`video:     rendering in the background; ${api.url(`/runs/${run.runId}/video`)}`);
}

/** The final answer the run's solution page states, when it reads as one line of text (see finalAnswerOf); the page's link follows either way. */
async function solutionAnswer(api: ApiClient, runId: string): Promise<string | undefined> {
  const response = await api.request(`/runs/${runId}/solution`).catch(() => undefined);
  return response?.ok === true ? finalAnswerOf(await response.text()) : undefined;
}

/** The asset's metadata; the gateway's asset projection may trail the run by a moment (a few short retries of one GET). */
async function assetMetadata(api: ApiClient, assetId: string, io: CliIo): Promise<AssetMetadata | undefined> {
  for (let attempt = 0; attempt < 10; attempt += 1) {
    const { status, body } = await api.json<AssetMetadata>(`/assets/${assetId}`, {}, [404]);
    if (status === 200) return body;
    await io.sleep(200);
  }
  return undefined;
}
