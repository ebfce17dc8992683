import { CandidatesDiscovered, deterministicUuid, type DiscoverCandidates, type MessageData } from '@openpaw/contracts';
import { collectCandidates } from '../../domain/candidates.js';
import { ImageObserver } from '../../observation/image-observer.js';
import { StepProviderFailure } from '../../observation/step-failure.js';
import type { VisualStepPorts } from '../../ports.js';
import type { VisualCommand } from '../command.js';
import { type StepFailedReply, stepFailedReply } from '../step-failed.js';
import { keyToken } from '../../memory/kv-keys.js';

export type DiscoverCandidatesReply = { readonly kind: 'candidates_discovered'; readonly id: string; readonly data: MessageData<typeof CandidatesDiscovered> } | StepFailedReply;

const MAX_CANDIDATES = 50;

/**
 * DiscoverCandidates (S2): search around the frontier, recognise the first N images of each query
 * (deduplicated across the run) and collect everyone who co-appears with the frontier, both at or
 * above the threshold, in the spec's fallback order. Each candidate's images already verify its edge
 * to the frontier by the spec's rule, so those edges go to run memory and to the evidence cache: a
 * later VerifyEdge of the pair costs nothing. Candidates are kept under `candidates:{frontier}`.
 */
export class DiscoverCandidatesHandler {
  private readonly observer: ImageObserver;

  constructor(private readonly ports: VisualStepPorts) {
    this.observer = new ImageObserver(ports);
  }

  async execute(command: VisualCommand<typeof DiscoverCandidates>): Promise<DiscoverCandidatesReply> {
    const { data, commandId } = command;
    const run = { sessionId: data.sessionId, runId: data.runId };
    const stored = await this.ports.memory.getReply<DiscoverCandidatesReply>(run, commandId);
    if (stored !== undefined) return stored;
    const reply = await this.decide(command);
    await this.ports.memory.putReply(run, commandId, reply);
    return reply;
  }

  private async decide({ commandId, data }: VisualCommand<typeof DiscoverCandidates>): Promise<DiscoverCandidatesReply> {
    const run = { sessionId: data.sessionId, runId: data.runId };
    let outcome;
    try {
      outcome = await this.observer.observe({ run, queries: data.queries, imagesPerQuery: data.imagesPerQuery, budget: data.budget });
    } catch (error) {
      if (error instanceof StepProviderFailure) return stepFailedReply(commandId, data, 'DiscoverCandidates', error);
      throw error;
    }
    const found = collectCandidates(outcome.observations, data.frontier, data.threshold, new Set(data.exclude));
    const candidates = found.candidates.slice(0, MAX_CANDIDATES);
    const frontier = found.frontier ?? data.frontier;
    if (found.frontier !== undefined) {
      for (const c of candidates) {
        const edge = { from: found.frontier, to: c.person, edgeConf: c.bestConfWithFrontier, evidence: c.evidence };
        await this.ports.cache.put({ status: 'verified', edge });
        await this.ports.memory.putEdge(run, edge.from.celebrityId, edge.to.celebrityId, { edgeConf: edge.edgeConf, evidence: edge.evidence });
      }
    }
    await this.ports.memory.putCandidates(
      run,
      frontier.celebrityId ?? keyToken(frontier.name),
      Object.fromEntries(candidates.map((c) => [c.person.celebrityId, { name: c.person.name, count: c.count, bestConf: c.bestConfWithFrontier, evidenceRefs: c.evidence.map((e) => e.imageUrl) }])),
    );
    return {
      kind: 'candidates_discovered',
      id: deterministicUuid(commandId, CandidatesDiscovered.subject),
      data: {
        runId: data.runId,
        commandId,
        step: data.step,
        frontier,
        candidates: candidates.map((c) => ({ person: c.person, count: c.count, bestConfWithFrontier: c.bestConfWithFrontier, evidence: [...c.evidence] })),
        ...(outcome.budgetExhausted !== undefined ? { budgetExhausted: outcome.budgetExhausted } : {}),
        usage: { ...outcome.usage, cacheHit: false },
      },
    };
  }
}
