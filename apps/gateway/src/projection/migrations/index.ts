import { CreateRunProjection1763800000000 } from './1763800000000-create-run-projection.js';
import { CreateAssetProjection1763900000000 } from './1763900000000-create-asset-projection.js';
import { IndexRunsInFlight1764100000000 } from './1764100000000-index-runs-in-flight.js';
import { CreateRunTransitions1764200000000 } from './1764200000000-create-run-transitions.js';
import { CreateUserProviderKeys1764300000000 } from './1764300000000-create-user-provider-keys.js';
import { CreateOperatorAudit1764400000000 } from './1764400000000-create-operator-audit.js';
import { CreateSavedRunViews1764510000000 } from './1764510000000-create-saved-run-views.js';
import { KeepScheduledRetries1764520000000 } from './1764520000000-keep-scheduled-retries.js';
import { CreateRunAdmissions1764530000000 } from './1764530000000-create-run-admissions.js';
import { CreateResearchWebhooks1764610000000 } from './1764610000000-create-research-webhooks.js';
import { AddProviderKeyTests1764620000000 } from './1764620000000-add-provider-key-tests.js';
import { CreateArtifactJobKeys1764700000000 } from './1764700000000-create-artifact-job-keys.js';
import { CountRunsInFlight1764800000000 } from './1764800000000-count-runs-in-flight.js';
import { registerSchemaMigrations } from '@openpaw/persistence';

/** The gateway schema's migrations, oldest first. */
export const gatewayMigrations = registerSchemaMigrations('gateway', [
  CreateRunProjection1763800000000,
  CreateAssetProjection1763900000000,
  IndexRunsInFlight1764100000000,
  CreateRunTransitions1764200000000,
  // Spec 05 (research flow).
  CreateUserProviderKeys1764300000000,
  // Issue 17 (operations audit log).
  CreateOperatorAudit1764400000000,
  // Issue 17 (saved views of the runs list).
  CreateSavedRunViews1764510000000,
  // Issue 17 (the pending step's next try and last error).
  KeepScheduledRetries1764520000000,
  // Issue 17 (in-flight runs per tier).
  CreateRunAdmissions1764530000000,
  // Spec 05: GET /research/webhook (ADR 0018).
  CreateResearchWebhooks1764610000000,
  // Spec 05: a user's test of a stored provider key (issue 26).
  AddProviderKeyTests1764620000000,
  // Issue 27: a retried POST /ai/chat (same Idempotency-Key) is the job it started.
  CreateArtifactJobKeys1764700000000,
  // Issue 23: admission reads each user's runs in flight from counters, not a count of their rows.
  CountRunsInFlight1764800000000,
]);
