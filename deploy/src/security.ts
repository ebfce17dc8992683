import * as kplus from 'cdk8s-plus-34';

/** The image's `node` user (Dockerfile `USER node`). */
export const APP_UID = 1000;

/** Pod-level context for the restricted Pod Security Standard. */
export const RESTRICTED_POD: kplus.PodSecurityContextProps = {
  ensureNonRoot: true,
  user: APP_UID,
  group: APP_UID,
  fsGroup: APP_UID,
};

/** Container-level context for the restricted Pod Security Standard: non-root, no escalation, no capabilities, read-only root, RuntimeDefault seccomp. */
export const RESTRICTED_CONTAINER: kplus.ContainerSecurityContextProps = {
  ensureNonRoot: true,
  user: APP_UID,
  group: APP_UID,
  privileged: false,
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: [kplus.Capability.ALL] },
  seccompProfile: { type: kplus.SeccompProfileType.RUNTIME_DEFAULT },
};
