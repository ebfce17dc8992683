import { EXIT, type ExitCode } from '../exit-codes.js';
import { papers, type PapersOptions, type PapersOutcome } from '../papers.js';
import { UsageError, type Verb } from '../verb.js';

const EXPORT_FORMATS = ['bibtex', 'ris', 'csl-json'] as const;

const EXIT_OF: Readonly<Record<PapersOutcome, ExitCode>> = {
  completed: EXIT.succeeded,
  failed: EXIT.failed,
  cancelled: EXIT.cancelled,
  waiting: EXIT.stillRunning,
  timeout: EXIT.stillRunning,
};

/** `openpaw papers`: a paper search with its two checkpoints decided on stdin. */
export const papersVerb: Verb = {
  name: 'papers',
  summary: 'search papers, deciding the strategy and result checkpoints on stdin',
  usage: [
    '"<query>" [--no-strategy-checkpoint] [--auto] [--max-iterations <n>] [--sources <a,b>] [--export bibtex|ris|csl-json] [--no-wait]',
    '--resume <runId>      decide the checkpoint a paper search waits at',
  ],
  options: {
    'no-strategy-checkpoint': { type: 'boolean' },
    auto: { type: 'boolean' },
    'max-iterations': { type: 'string' },
    sources: { type: 'string' },
    export: { type: 'string' },
    resume: { type: 'string' },
    'no-wait': { type: 'boolean' },
  },
  needsApi: true,
  async run({ args, options, io, api, timeoutMs }) {
    const query = args.join(' ').trim();
    const resume = typeof options['resume'] === 'string' ? options['resume'] : undefined;
    if (query === '' && resume === undefined) throw new UsageError('usage: openpaw papers "<query>"');
    const rawMax = options['max-iterations'];
    const maxIterations = typeof rawMax === 'string' ? Number(rawMax) : undefined;
    if (maxIterations !== undefined && !(Number.isInteger(maxIterations) && maxIterations > 0)) throw new UsageError('--max-iterations must be a positive whole number');
    const exportFormat = options['export'];
    if (exportFormat !== undefined && !EXPORT_FORMATS.includes(exportFormat as (typeof EXPORT_FORMATS)[number])) throw new UsageError('--export must be bibtex, ris or csl-json');
    const sources = options['sources'];
    const papersOptions: PapersOptions = {
      strategyCheckpoint: options['no-strategy-checkpoint'] !== true,
      autoApprove: options['auto'] === true,
      timeoutSeconds: timeoutMs / 1000,
      noWait: options['no-wait'] === true,
      ...(maxIterations === undefined ? {} : { maxIterations }),
      ...(typeof sources === 'string' ? { sources: sources.split(',').map((s) => s.trim()).filter((s) => s !== '') } : {}),
      ...(exportFormat === undefined ? {} : { exportFormat: exportFormat as (typeof EXPORT_FORMATS)[number] }),
      ...(resume === undefined ? {} : { resume }),
    };
    const { outcome, search } = await papers(await api(), query, papersOptions, io);
    if (outcome === 'timeout') io.stderr(`still running after ${timeoutMs / 1000} s`);
    return { exitCode: EXIT_OF[outcome], result: search ?? null };
  },
};
