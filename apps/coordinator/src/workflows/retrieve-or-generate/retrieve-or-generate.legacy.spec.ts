import {
  AssetVersionCreated,
  type AnyMessageDefinition,
  CancelRun,
  createEnvelope,
  IndexDocument,
  MediaNormalized,
  type MessageData,
  NormalizeMedia,
  RegisterSolution,
  RetrievalMiss,
  StartRun,
} from '@openpaw/contracts';
import { type Applied, applyInput, childRunIdFor, commandIdFor, KEY_HOLDER_ENDED_TIMER_PREFIX, keyHolderEndedPayload, type RunRecord, type SagaInput } from '@openpaw/saga';
import { REINDEX_ASSET, SOLVE_WORKFLOW, VIDEO_WORKFLOW } from '../shared/workflow-types.js';
import { type SagaDriver, sha256Of, uuid } from '../testing/saga-driver.js';
import { problemKeyOf } from './problem-key.js';
import { SOLVE_CHILD_KEY } from './retrieve-or-generate.commands.js';
import { currentData, type LegacyRetrieveOrGenerateData } from './retrieve-or-generate.legacy.js';
import type { RetrieveOrGenerateState } from './retrieve-or-generate.states.js';
import {
  ASSET,
  candidate,
  dataOf,
  definition,
  documentIndexed,
  generating,
  indexing,
  ingesting,
  NEAR_ASSET,
  PROBLEM,
  problemRegistered,
  PROVENANCE,
  registering,
  retrieving,
  SIG,
  solvedView,
} from './testing/given.js';

/**
 * Runs stored in PostgreSQL by the definition before the per-stage data (one flat record of
 * nullable fields) load and continue under the current one. Each point is reached by the current
 * definition, and the same row is stored as the previous definition stored it there (its fields as
 * recorded from that definition).
 */

const EARLIER = uuid(0xe1);
const KEY = problemKeyOf(SIG, 'user-1', undefined);
const SOLUTION = { storageKey: 'solutions/abc.html', contentSha256: sha256Of('e'), provenance: PROVENANCE };
const earlier = (state: string, terminal: boolean) => ({
  runId: EARLIER,
  state,
  attemptNo: 1,
  terminal,
  view: terminal ? { status: 'succeeded', outcome: 'new', output: { asset_version_id: ASSET, video_pending: true, is_approximate: false } } : {},
});

type Legacy = LegacyRetrieveOrGenerateData;

/** The previous definition's data as its `init` stored it (the run's request and policy), with the fields of the point reached. */
function legacy(d: SagaDriver, fields: Partial<Legacy>): Legacy {
  const { request, policy } = dataOf(d);
  return {
    request,
    policy,
    startedAt: '2026-01-01T00:00:00.000Z',
    step: null,
    signature: null,
    mediaType: null,
    topCandidate: null,
    problemKey: null,
    waitingForRunId: null,
    cachedFrom: null,
    solveRunId: null,
    solution: null,
    problemRegistered: null,
    assetVersionCreated: null,
    result: null,
    costUsd: 0,
    errorCode: null,
    ...fields,
  };
}

/** The run's row as the previous definition stored it at this point (its data through JSON, as jsonb keeps it). */
function storedBefore(d: SagaDriver, fields: Partial<Legacy>): RunRecord {
  return { ...d.s.run, data: JSON.parse(JSON.stringify(legacy(d, fields))) as unknown };
}

const ingested = { signature: SIG, mediaType: 'text' as const, problemKey: KEY };
/** The solve child run's id: the engine's, for this run and attempt, whichever definition started it. */
const childOf = (d: SagaDriver): string => childRunIdFor(d.s.run, SOLVE_WORKFLOW, SOLVE_CHILD_KEY);

let sequence = 0;
function apply(run: RunRecord, input: SagaInput): Applied {
  sequence += 1;
  return applyInput(definition, run, input, { messageId: `msg-${sequence}`, runId: run.id }, new Date('2026-01-01T00:00:10Z'));
}
function reply<M extends AnyMessageDefinition>(run: RunRecord, message: M, data: MessageData<M>): SagaInput {
  sequence += 1;
  return { kind: 'event', envelope: createEnvelope(message, data, { id: `evt-${sequence}`, source: '/openpaw/test', correlationId: run.id }) };
}
/** The id of the command the previous definition sent under `key` (step keys are unchanged). */
const commandOf = (run: RunRecord, key: string): string => commandIdFor(run.id, run.attemptNo, key);
const sent = <M extends AnyMessageDefinition>(applied: Applied, message: M) => applied.outbox.filter((o) => o.envelope.type === message.subject);
const viewOf = (run: RunRecord) => definition.view(run as Parameters<typeof definition.view>[0]);
/** The stored row's data as the current definition reads it. */
const load = (run: RunRecord) => currentData({ ...run, state: run.state as RetrieveOrGenerateState });

function waitingForEarlier(): SagaDriver {
  const d = ingesting().givenKeyHeldBy(earlier('GENERATING_SOLUTION', false));
  d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG });
  return d;
}
function cachedFromEarlier(): SagaDriver {
  const d = ingesting().givenKeyHeldBy(earlier('SUCCEEDED', true));
  d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG });
  return d;
}
function inRetrieveBackoff(): SagaDriver {
  const d = retrieving();
  d.fire('resend:retrieve:1');
  return d;
}

const near = candidate(0.8, 'vector', NEAR_ASSET);
const registered = { problemId: PROBLEM, created: true };
const version = { assetVersionId: ASSET, problemId: PROBLEM, version: 1 };
const newResult = { outcome: 'new' as const, assetVersionId: ASSET, isApproximate: false, videoPending: true, indexDeferred: false };

/** Each point: the run brought there by the current definition, and the previous definition's fields there. */
const POINTS: ReadonlyArray<readonly [string, () => SagaDriver, (d: SagaDriver) => Partial<Legacy>]> = [
  ['INGESTING, its first try awaited', () => ingesting(), () => ({ step: { name: 'ingest', tries: 1, waiting: 'reply' } })],
  [
    'INGESTING, in backoff after a timeout',
    () => {
      const d = ingesting();
      d.fire('resend:ingest:1');
      return d;
    },
    () => ({ step: { name: 'ingest', tries: 1, waiting: 'backoff' } }),
  ],
  ['RETRIEVING, waiting for an earlier run holding the key', waitingForEarlier, () => ({ ...ingested, waitingForRunId: EARLIER })],
  ['RETRIEVING, searching', () => retrieving(), () => ({ ...ingested, step: { name: 'retrieve', tries: 1, waiting: 'reply' } })],
  ['RETRIEVING, searching, in backoff', inRetrieveBackoff, () => ({ ...ingested, step: { name: 'retrieve', tries: 1, waiting: 'backoff' } })],
  ['GENERATING_SOLUTION', () => generating(near).d, (d) => ({ ...ingested, topCandidate: near, solveRunId: childOf(d) })],
  [
    'REGISTERING, both registry events awaited',
    () => registering(),
    (d) => ({ ...ingested, solveRunId: childOf(d), solution: SOLUTION, costUsd: 0.02, step: { name: 'register', tries: 1, waiting: 'reply' } }),
  ],
  [
    'REGISTERING, ProblemRegistered in',
    () => {
      const d = registering();
      problemRegistered(d);
      return d;
    },
    (d) => ({ ...ingested, solveRunId: childOf(d), solution: SOLUTION, costUsd: 0.02, problemRegistered: registered, step: { name: 'register', tries: 1, waiting: 'reply' } }),
  ],
  [
    'INDEXING',
    () => indexing(),
    (d) => ({
      ...ingested,
      solveRunId: childOf(d),
      solution: SOLUTION,
      costUsd: 0.02,
      problemRegistered: registered,
      assetVersionCreated: version,
      step: { name: 'index', tries: 1, waiting: 'reply' },
    }),
  ],
  [
    'SUCCEEDED with a new solution',
    () => {
      const d = indexing();
      documentIndexed(d);
      return d;
    },
    (d) => ({
      ...ingested,
      solveRunId: childOf(d),
      solution: SOLUTION,
      costUsd: 0.02,
      problemRegistered: registered,
      assetVersionCreated: version,
      step: { name: 'index', tries: 1, waiting: 'reply' },
      result: newResult,
    }),
  ],
  ['SUCCEEDED with an earlier run result', cachedFromEarlier, () => ({ ...ingested, cachedFrom: EARLIER, result: newResult })],
  [
    'FAILED at the deadline while registering, its solution kept',
    () => {
      const d = registering();
      d.fire('deadline');
      return d;
    },
    (d) => ({ ...ingested, solveRunId: childOf(d), solution: SOLUTION, costUsd: 0.02, step: { name: 'register', tries: 1, waiting: 'reply' }, errorCode: 'deadline_exceeded' }),
  ],
  [
    'CANCELLED while it waited for an earlier run',
    () => {
      const d = waitingForEarlier();
      d.cancel();
      return d;
    },
    () => ({ ...ingested, waitingForRunId: EARLIER }),
  ],
  [
    'CANCELLED while generating',
    () => {
      const { d } = generating(null);
      d.cancel();
      return d;
    },
    (d) => ({ ...ingested, solveRunId: childOf(d) }),
  ],
];

describe('retrieve_or_generate runs stored by the previous definition (flat nullable data)', () => {
  it.each(POINTS)('given a run stored in %s, when loaded, then it reads as the data and view the current definition has there', (_, reach, fields) => {
    const d = reach();
    const stored = storedBefore(d, fields(d));
    expect(load(stored)).toEqual(d.s.run.data);
    expect(viewOf(stored)).toEqual(viewOf(d.s.run));
  });

  it('given a run stored in RETRIEVING before the key claim existed (no problemKey, waitingForRunId or cachedFrom), then it reads as searching', () => {
    const d = retrieving();
    const { problemKey: _k, waitingForRunId: _w, cachedFrom: _c, ...old } = legacy(d, { ...ingested, step: { name: 'retrieve', tries: 1, waiting: 'reply' } });
    expect(load({ ...d.s.run, data: old })).toEqual(d.s.run.data);
  });

  it('given a run stored in INGESTING, when its ingest command answers, then RETRIEVING, claiming the key, written in the current shape', () => {
    const run = storedBefore(ingesting(), { step: { name: 'ingest', tries: 1, waiting: 'reply' } });
    const applied = apply(run, reply(run, MediaNormalized, { runId: run.id, commandId: commandOf(run, 'ingest:1'), mediaType: 'text', signature: SIG }));
    expect(applied.run?.state).toBe('RETRIEVING');
    expect(applied.claims).toEqual([expect.objectContaining({ key: KEY })]);
    expect(applied.run?.data).toMatchObject({ stage: 'claiming', problemKey: KEY, signature: SIG });
    expect(applied.run?.data).not.toHaveProperty('step');
    // A reply to a try it never sent is stale, as before.
    expect(apply(run, reply(run, MediaNormalized, { runId: run.id, commandId: commandOf(run, 'ingest:2'), mediaType: 'text', signature: SIG })).outcome).toBe('ignored');
  });

  it('given a run stored in INGESTING in backoff, when its `retry:ingest` timer fires, then the second try is sent under the key it had (`ingest:2`)', () => {
    const d = ingesting();
    d.fire('resend:ingest:1');
    const run = storedBefore(d, { step: { name: 'ingest', tries: 1, waiting: 'backoff' } });
    const applied = apply(run, { kind: 'timer', name: 'retry:ingest', payload: { step: 'ingest', tries: 1, attempt_no: 1 } });
    expect(applied.outcome).toBe('applied');
    expect(sent(applied, NormalizeMedia).map((o) => o.envelope.id)).toEqual([commandOf(run, 'ingest:2')]);
  });

  it('given a run stored in RETRIEVING waiting for an earlier run, when that run SUCCEEDED, then SUCCEEDED with its result', () => {
    const run = storedBefore(waitingForEarlier(), { ...ingested, waitingForRunId: EARLIER });
    const holder = earlier('SUCCEEDED', true);
    const applied = apply(run, { kind: 'timer', name: `${KEY_HOLDER_ENDED_TIMER_PREFIX}${KEY}`, payload: keyHolderEndedPayload(KEY, holder) });
    expect(applied.run?.state).toBe('SUCCEEDED');
    expect(viewOf(applied.run as RunRecord)).toMatchObject({ outcome: 'new', output: { asset_version_id: ASSET }, cached_from: EARLIER });
  });

  it('given a run stored in GENERATING_SOLUTION, when its solve child succeeds, then REGISTERING with RegisterSolution; cancelled instead, its child is cancelled', () => {
    const { d, solveRunId } = generating(near);
    const run = storedBefore(d, { ...ingested, topCandidate: near, solveRunId });
    const solved = apply(run, { kind: 'child', childRunId: solveRunId, workflowType: SOLVE_WORKFLOW, state: 'SUCCEEDED', view: solvedView });
    expect(solved.run?.state).toBe('REGISTERING');
    expect(sent(solved, RegisterSolution).map((o) => o.envelope.data)).toEqual([expect.objectContaining({ signature: SIG, storageKey: SOLUTION.storageKey })]);
    const cancelled = apply(run, { kind: 'cancel', userId: run.userId });
    expect(cancelled.run?.state).toBe('CANCELLED');
    expect(sent(cancelled, CancelRun).map((o) => o.envelope.data)).toEqual([expect.objectContaining({ runId: solveRunId })]);
  });

  it('given a run stored in REGISTERING with ProblemRegistered in, when AssetVersionCreated answers its `register:1`, then INDEXING with IndexDocument', () => {
    const d = registering();
    problemRegistered(d);
    const run = storedBefore(d, { ...ingested, solveRunId: childOf(d), solution: SOLUTION, costUsd: 0.02, problemRegistered: registered, step: { name: 'register', tries: 1, waiting: 'reply' } });
    const applied = apply(
      run,
      reply(run, AssetVersionCreated, {
        runId: run.id,
        commandId: commandOf(run, 'register:1'),
        problemId: PROBLEM,
        assetVersionId: ASSET,
        assetType: 'solution_html',
        version: 1,
        storageKey: SOLUTION.storageKey,
        contentType: 'text/html',
      }),
    );
    expect(applied.run?.state).toBe('INDEXING');
    expect(sent(applied, IndexDocument).map((o) => o.envelope.id)).toEqual([commandOf(run, 'index:1')]);
  });

  it('given a run stored in INDEXING, when its index try times out, then SUCCEEDED with reindex_asset and video in the background', () => {
    const d = indexing();
    const run = storedBefore(d, {
      ...ingested,
      solveRunId: childOf(d),
      solution: SOLUTION,
      costUsd: 0.02,
      problemRegistered: registered,
      assetVersionCreated: version,
      step: { name: 'index', tries: 1, waiting: 'reply' },
    });
    const applied = apply(run, { kind: 'timer', name: 'timeout:index:1', payload: {} });
    expect(applied.run?.state).toBe('SUCCEEDED');
    expect(sent(applied, StartRun).map((o) => (o.envelope.data as MessageData<typeof StartRun>).workflowType)).toEqual([REINDEX_ASSET, VIDEO_WORKFLOW]);
  });

  it('given a run stored in RETRIEVING searching, when retrieval misses, then GENERATING_SOLUTION with its solve child', () => {
    const run = storedBefore(retrieving(), { ...ingested, step: { name: 'retrieve', tries: 1, waiting: 'reply' } });
    const applied = apply(run, reply(run, RetrievalMiss, { runId: run.id, commandId: commandOf(run, 'retrieve:1'), topCandidate: null, trace: [] }));
    expect(applied.run?.state).toBe('GENERATING_SOLUTION');
    expect(sent(applied, StartRun)).toHaveLength(1);
  });

  it('given a stored row missing what its state needs, then loading it names the field rather than guessing', () => {
    const run = storedBefore(registering(), { ...ingested, step: { name: 'register', tries: 1, waiting: 'reply' } });
    expect(() => load(run)).toThrow('stored retrieve_or_generate data in REGISTERING has no solution');
  });
});
