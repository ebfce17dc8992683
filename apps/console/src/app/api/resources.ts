import type { operations } from './schema.js';

/** The resources the console shows, named from the generated operations (never restated by hand). */
export type Run = operations['RunsController_get']['responses'][200]['content']['application/json'];
export type RunPage = operations['RunsController_list']['responses'][200]['content']['application/json'];
/** A run as the runs list has it: a summary, without its view (one `GET /runs/{id}` away). */
export type RunSummary = RunPage['items'][number];
export type RunTimeline = operations['RunsController_timeline']['responses'][200]['content']['application/json'];
export type RunTransition = RunTimeline['items'][number];
export type ProblemSubmission = operations['ProblemsController_submit']['responses'][202]['content']['application/json'];

/** The message of an error body the gateway answered (`{ error, message? }`), for people. */
export function errorMessage(error: unknown, fallback: string): string {
  if (typeof error === 'object' && error !== null) {
    const body = error as { message?: unknown; error?: unknown; detail?: unknown; issues?: unknown };
    if (Array.isArray(body.issues)) {
      return body.issues.map((issue: { path?: string; message?: string }) => `${issue.path ?? ''}: ${issue.message ?? ''}`).join('; ');
    }
    if (typeof body.detail === 'string') return body.detail;
    if (typeof body.message === 'string') return body.message;
    if (typeof body.error === 'string') return body.error;
  }
  return fallback;
}

export type ArtifactJob = operations['ChatController_artifact']['responses'][200]['content']['application/json'];

export type Research = operations['ResearchController_get']['responses'][200]['content']['application/json'];
export type ResearchDraft = operations['ResearchController_createDraft']['responses'][201]['content']['application/json'];
export type ResearchProvider = Research['selectedLlms'][number];
export type ProviderKeys = operations['ProviderKeysController_list']['responses'][200]['content']['application/json'];
export type ResearchWebhook = operations['ResearchWebhookController_get']['responses'][200]['content']['application/json'];
export type ResearchWebhookRegistered = operations['ResearchWebhookController_put']['responses'][200]['content']['application/json'];
export type LibraryImport = operations['LibraryController_import']['responses'][200]['content']['application/json'];
export type PaperSearch = operations['PaperSearchesController_get']['responses'][200]['content']['application/json'];
export type VisualDegreesRun = operations['VisualDegreesController_get']['responses'][200]['content']['application/json'];

export type OpsLanes = operations['OpsController_lanes']['responses'][200]['content']['application/json'];
export type OpsDeadLetters = operations['OpsController_deadLetters']['responses'][200]['content']['application/json'];
export type OpsRedriveByFilterResult = operations['OpsController_redriveByFilter']['responses'][200]['content']['application/json'];
export type OpsAudit = operations['OpsController_auditLog']['responses'][200]['content']['application/json'];

export type SavedRunViews = operations['RunViewsController_list']['responses'][200]['content']['application/json'];
export type SavedRunView = SavedRunViews['views'][number];
export type OpsInFlight = operations['OpsController_inFlight']['responses'][200]['content']['application/json'];
