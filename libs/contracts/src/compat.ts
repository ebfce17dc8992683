/*
 * Compatibility of a message's JSON Schema with the previous release's (contracts/baseline/), for the
 * subset zod generates (object, array, scalar types, enum, const, anyOf, $ref, bounds, pattern).
 * The policy (contracts/README.md): within one subject version, only additive changes:
 * - a new optional property, or a new event-only property that is required (consumers ignore
 *   unknown fields; producers of a command would not send it, so a new required command field breaks);
 * - looser bounds on a command (the owner accepts more), never on an event (consumers validated the old ones).
 * Anything else (a property removed, optional <-> required, a type, const, pattern or format changed,
 * an enum value removed, or added to an event) is a break and needs a `.v<N+1>` subject.
 */

type Schema = Record<string, unknown>;
export type MessageKindName = 'command' | 'event';

export interface Incompatibility {
  /** JSON pointer-like path inside the message schema. */
  readonly path: string;
  readonly problem: string;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.map((v) => JSON.stringify(v)) : [];
}

/** Lower bounds: a larger value in the new schema is tighter. */
const LOWER = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
/** Upper bounds: a smaller value in the new schema is tighter. */
const UPPER = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;
/** Must not change at all within a version. */
const EXACT = ['type', 'const', 'pattern', 'format', '$ref'] as const;

function compareBounds(old: Schema, now: Schema, path: string, kind: MessageKindName, out: Incompatibility[]): void {
  for (const key of [...LOWER, ...UPPER]) {
    const before = old[key];
    const after = now[key];
    if (before === after) continue;
    const lower = (LOWER as readonly string[]).includes(key);
    const numBefore = typeof before === 'number' ? before : lower ? -Infinity : Infinity;
    const numAfter = typeof after === 'number' ? after : lower ? -Infinity : Infinity;
    const tighter = lower ? numAfter > numBefore : numAfter < numBefore;
    // Tighter breaks producers of a command and old payloads of an event; looser breaks consumers of an event.
    if (tighter || kind === 'event') out.push({ path, problem: `${key} changed from ${String(before)} to ${String(after)}` });
  }
}

function compareNode(old: Schema, now: Schema, path: string, kind: MessageKindName, out: Incompatibility[]): void {
  for (const key of EXACT) {
    if (JSON.stringify(old[key]) !== JSON.stringify(now[key])) {
      out.push({ path, problem: `${key} changed from ${JSON.stringify(old[key]) ?? 'none'} to ${JSON.stringify(now[key]) ?? 'none'}` });
    }
  }
  compareBounds(old, now, path, kind, out);

  if (old['enum'] !== undefined || now['enum'] !== undefined) {
    const before = stringArray(old['enum']);
    const after = stringArray(now['enum']);
    const removed = before.filter((v) => !after.includes(v));
    const added = after.filter((v) => !before.includes(v));
    if (old['enum'] === undefined) out.push({ path, problem: `enum added: ${after.join(', ')}` });
    else if (removed.length > 0) out.push({ path, problem: `enum values removed: ${removed.join(', ')}` });
    if (added.length > 0 && kind === 'event' && old['enum'] !== undefined) out.push({ path, problem: `enum values added to an event: ${added.join(', ')}` });
  }

  const oldProps = isSchema(old['properties']) ? old['properties'] : {};
  const nowProps = isSchema(now['properties']) ? now['properties'] : {};
  const oldRequired = new Set(Array.isArray(old['required']) ? (old['required'] as string[]) : []);
  const nowRequired = new Set(Array.isArray(now['required']) ? (now['required'] as string[]) : []);
  for (const [name, schema] of Object.entries(oldProps)) {
    const at = `${path}/${name}`;
    const next = nowProps[name];
    if (!isSchema(next)) {
      out.push({ path: at, problem: 'property removed' });
      continue;
    }
    if (oldRequired.has(name) && !nowRequired.has(name)) out.push({ path: at, problem: 'required property became optional' });
    if (!oldRequired.has(name) && nowRequired.has(name)) out.push({ path: at, problem: 'optional property became required' });
    if (isSchema(schema)) compareNode(schema, next, at, kind, out);
  }
  for (const name of Object.keys(nowProps)) {
    if (name in oldProps) continue;
    if (nowRequired.has(name) && kind === 'command') out.push({ path: `${path}/${name}`, problem: 'new required property on a command' });
  }

  for (const key of ['items', 'additionalProperties'] as const) {
    const before = old[key];
    const after = now[key];
    if (isSchema(before) && isSchema(after)) compareNode(before, after, `${path}/${key}`, kind, out);
    else if (isSchema(before) !== isSchema(after) && (isSchema(before) || isSchema(after))) {
      out.push({ path: `${path}/${key}`, problem: `${key} schema ${isSchema(before) ? 'removed' : 'added'}` });
    }
  }

  for (const key of ['anyOf', 'oneOf'] as const) {
    const before = Array.isArray(old[key]) ? (old[key] as unknown[]) : [];
    const after = Array.isArray(now[key]) ? (now[key] as unknown[]) : [];
    for (let i = 0; i < Math.min(before.length, after.length); i += 1) {
      const b = before[i];
      const a = after[i];
      if (isSchema(b) && isSchema(a)) compareNode(b, a, `${path}/${key}/${i}`, kind, out);
    }
    // A variant fewer refuses what old producers send (command); a variant more surprises old consumers (event).
    if (after.length < before.length) out.push({ path, problem: `${key} variants removed (${before.length} -> ${after.length})` });
    if (after.length > before.length && kind === 'event') out.push({ path, problem: `${key} variants added to an event (${before.length} -> ${after.length})` });
  }
}

/** Where `now` breaks readers or writers of `old` (empty: compatible under the policy). */
export function incompatibilities(old: Schema, now: Schema, kind: MessageKindName): Incompatibility[] {
  const out: Incompatibility[] = [];
  compareNode(old, now, '', kind, out);
  return out;
}

export interface SchemaSet {
  /** Path under contracts/ -> parsed schema (each has `x-openpaw-kind` and `x-openpaw-subject`). */
  readonly [path: string]: Schema;
}

export interface CompatReport {
  readonly path: string;
  readonly subject: string;
  readonly problems: readonly Incompatibility[];
}

/**
 * Compares every message of the baseline with the same path now. A removed message is a break (a
 * version is retired only by a release that updates the baseline after its consumers moved); a new
 * message (a new subject or `.v<N+1>`) is always fine.
 */
export function checkAgainstBaseline(baseline: SchemaSet, current: SchemaSet): CompatReport[] {
  const reports: CompatReport[] = [];
  for (const [path, old] of Object.entries(baseline)) {
    const subject = typeof old['x-openpaw-subject'] === 'string' ? old['x-openpaw-subject'] : path;
    const now = current[path];
    if (now === undefined) {
      reports.push({ path, subject, problems: [{ path: '', problem: 'message removed' }] });
      continue;
    }
    const kind: MessageKindName = old['x-openpaw-kind'] === 'command' ? 'command' : 'event';
    const problems = incompatibilities(old, now, kind);
    if (problems.length > 0) reports.push({ path, subject, problems });
  }
  return reports;
}

export function formatReports(reports: readonly CompatReport[]): string {
  return reports
    .map((r) => [`${r.subject} (${r.path}): breaking change without a new version`, ...r.problems.map((p) => `  ${p.path || '/'}: ${p.problem}`)].join('\n'))
    .join('\n');
}
