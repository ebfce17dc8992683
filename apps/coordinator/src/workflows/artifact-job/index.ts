export { artifactJobDefinition, MAX_VALIDATION_RETRIES, PROGRESS, type ArtifactJobData, type ArtifactJobState } from './artifact-job.definition.js';
export { artifactJobTimingsFromEnv, DEFAULT_ARTIFACT_JOB_TIMINGS, type ArtifactJobTimings } from './artifact-job.timings.js';
