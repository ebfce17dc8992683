import { parse } from 'yaml';
import type { PodContainer } from './pod-containers.js';

interface ComposeService {
  readonly image?: string;
  readonly build?: string;
  readonly command?: readonly string[] | string;
  readonly environment?: Readonly<Record<string, string | number | boolean | null>>;
  readonly healthcheck?: { readonly test?: readonly string[] | string; readonly disable?: boolean };
  readonly read_only?: boolean;
  readonly user?: string;
  readonly volumes?: readonly unknown[];
}

/** `${VAR}`, `${VAR:-default}` and `${VAR-default}` from the shell `docker compose up` runs in; `$$` is a `$`. */
export function interpolateCompose(text: string, shell: Readonly<Record<string, string>>): string {
  return text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}/g, (match, name: string | undefined, operator: string | undefined, fallback: string | undefined) => {
    if (name === undefined) return '$';
    const value = shell[name];
    if (operator === ':-') return value === undefined || value === '' ? (fallback ?? '') : value;
    if (operator === '-') return value ?? fallback ?? '';
    return value ?? '';
  });
}

export interface ComposeContainers {
  /** The services built from this repository (`build: .`): the platform's image. */
  readonly ours: PodContainer[];
  /** The services of other images (NATS, PostgreSQL, ...), by name. */
  readonly others: Readonly<Record<string, string>>;
}

/**
 * The services of `docker-compose.yml` as the boot test runs them: the exec-form `command`, the
 * `environment` (YAML merge keys resolved, interpolated from `shell`), `read_only`, and the readiness
 * its healthcheck asks for (the path it fetches on `PORT`). A service sets no uid of its own runs
 * as the image's USER (`imageUid`). Containers are in file order; `provision` is one of them.
 */
export function composeContainers(composeYaml: string, shell: Readonly<Record<string, string>>, imageUid: number): ComposeContainers {
  const services = (parse(composeYaml, { merge: true }) as { services: Record<string, ComposeService> }).services;
  const ours: PodContainer[] = [];
  const others: Record<string, string> = {};
  for (const [name, service] of Object.entries(services)) {
    if (service.build === undefined) {
      others[name] = service.image ?? '(no image)';
      continue;
    }
    if (!Array.isArray(service.command)) throw new Error(`compose service ${name}: the boot test runs exec-form commands only`);
    if (service.volumes !== undefined) throw new Error(`compose service ${name}: volumes are not mounted by the boot test`);
    if (service.user !== undefined && !/^\d+$/.test(service.user)) throw new Error(`compose service ${name}: user ${service.user} is not a numeric uid`);
    const env = Object.fromEntries(Object.entries(service.environment ?? {}).map(([key, value]) => [key, interpolateCompose(String(value ?? ''), shell)]));
    const health = service.healthcheck?.disable === true ? undefined : [service.healthcheck?.test ?? []].flat().join(' ');
    const path = health === undefined ? undefined : /'(\/[a-z]+)'/.exec(health)?.[1];
    const port = env['PORT'] === undefined ? undefined : Number(env['PORT']);
    const uid = service.user === undefined ? imageUid : Number(service.user);
    ours.push({
      kind: 'ComposeService',
      workload: name,
      container: name,
      init: false,
      image: 'build: .',
      argv: (service.command as readonly string[]).map((part) => interpolateCompose(part, shell)),
      env,
      readOnlyRootFilesystem: service.read_only === true,
      runAsUser: uid,
      runAsGroup: uid,
      mounts: [],
      ports: Object.fromEntries(
        [
          ['http', port],
          ['metrics', env['METRICS_PORT'] === undefined ? undefined : Number(env['METRICS_PORT'])],
        ].filter((entry): entry is [string, number] => entry[1] !== undefined),
      ),
      readiness: path === undefined || port === undefined ? undefined : { path, port },
      // An unhealthy compose container is only marked so, never restarted: no deadline of its own.
      startupBudgetMs: undefined,
    });
  }
  return { ours, others };
}
