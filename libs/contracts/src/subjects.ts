/**
 * Subject grammar. FROZEN: subjects, stream names and durable names are part of the public
 * contract with other teams; changing one needs a migration (a new version beside the old one).
 *   commands: openpaw.cmd.<service>.<Name>.v<N>   (one consumer: the owning service)
 *   events:   openpaw.evt.<context>.<Name>.v<N>   (any number of consumers)
 */
export type MessageKind = 'cmd' | 'evt';

export const SUBJECT_ROOT = 'openpaw';

export type Subject<K extends MessageKind, C extends string, N extends string, V extends number> =
  `${typeof SUBJECT_ROOT}.${K}.${C}.${N}.v${V}`;

const SEGMENT = /^[a-z][a-z0-9-]*$/;
const NAME = /^[A-Z][A-Za-z0-9]*$/;

export function subjectOf<K extends MessageKind, C extends string, N extends string, V extends number>(
  kind: K,
  context: C,
  name: N,
  version: V,
): Subject<K, C, N, V> {
  if (!SEGMENT.test(context)) throw new Error(`invalid context "${context}": lower-case, digits and dashes`);
  if (!NAME.test(name)) throw new Error(`invalid message name "${name}": PascalCase`);
  if (!Number.isInteger(version) || version < 1) throw new Error(`invalid version ${version}: a positive integer`);
  return `${SUBJECT_ROOT}.${kind}.${context}.${name}.v${version}`;
}

export interface ParsedSubject {
  readonly kind: MessageKind;
  readonly context: string;
  readonly name: string;
  readonly version: number;
}

export function parseSubject(subject: string): ParsedSubject | undefined {
  const match = /^openpaw\.(cmd|evt)\.([a-z][a-z0-9-]*)\.([A-Z][A-Za-z0-9]*)\.v([1-9][0-9]*)$/.exec(subject);
  if (match === null) return undefined;
  const [, kind, context, name, version] = match;
  if (kind === undefined || context === undefined || name === undefined || version === undefined) return undefined;
  return { kind: kind as MessageKind, context, name, version: Number(version) };
}

/** JetStream streams (FROZEN names). */
export const STREAMS = {
  commands: { name: 'OPENPAW_COMMANDS', subjects: ['openpaw.cmd.>'] },
  events: { name: 'OPENPAW_EVENTS', subjects: ['openpaw.evt.>'] },
  deadLetters: { name: 'OPENPAW_DLQ', subjects: ['openpaw.dlq.>'] },
} as const;

/** Dead-letter subject for a message that came in on `subject`. */
export function deadLetterSubjectOf(subject: string): string {
  return `${SUBJECT_ROOT}.dlq.${subject.startsWith(`${SUBJECT_ROOT}.`) ? subject.slice(SUBJECT_ROOT.length + 1) : subject}`;
}

/** Where the committed JSON Schema of a message lives, relative to `contracts/`. */
export function schemaPathOf(kind: MessageKind, context: string, name: string, version: number): string {
  return `events/${kind}/${context}/${name}.v${version}.schema.json`;
}

export const SCHEMA_BASE_URI = 'https://schemas.openpaw.dev/';
