export { artifactJobDefinition } from './artifact-job.definition.js';
export { ARTIFACT_JOB_STATES, ARTIFACT_JOB_TRANSITIONS, MAX_VALIDATION_RETRIES, PROGRESS, type ArtifactJobData, type ArtifactJobState } from './artifact-job.data.js';
export { artifactJobTimingsFromEnv, DEFAULT_ARTIFACT_JOB_TIMINGS, type ArtifactJobTimings } from './artifact-job.timings.js';
