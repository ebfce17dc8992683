import { CandidatesDiscovered, type DiscoverCandidates } from '@openpaw/contracts';
import { answerOnceWith, type Reply, replyTo } from '@openpaw/messaging';
import { collectCandidates } from '../../domain/candidates.js';
import { worldOf } from '../../domain/local-world-roster.js';
import { ImageObserver } from '../../observation/image-observer.js';
import { StepProviderFailure } from '../../observation/step-failure.js';
import type { VisualStepPorts } from '../../ports.js';
import { RunMemoryReplies } from '../../memory/run-memory-replies.js';
import type { VisualCommand } from '../command.js';
import { stepFailedReply } from '../step-failed.js';

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

  async execute(command: VisualCommand<typeof DiscoverCandidates>): Promise<Reply> {
    const { data, commandId } = command;
    const run = { sessionId: data.sessionId, runId: data.runId };
    return answerOnceWith(new RunMemoryReplies(this.ports.memory, run), commandId, () => this.decide(command));
  }

  private async decide({ commandId, data, signal }: VisualCommand<typeof DiscoverCandidates>): Promise<Reply> {
    const run = { sessionId: data.sessionId, runId: data.runId };
    let outcome;
    try {
      outcome = await this.observer.observe({ run, queries: data.queries, imagesPerQuery: data.imagesPerQuery, budget: data.budget, ...(signal === undefined ? {} : { signal }) });
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
        await this.ports.cache.put(this.ports.recognizer.provider, { status: 'verified', edge });
        await this.ports.memory.putEdge(run, edge.from.celebrityId, edge.to.celebrityId, { edgeConf: edge.edgeConf, evidence: edge.evidence });
      }
    }
    return replyTo(commandId, CandidatesDiscovered, {
        runId: data.runId,
        commandId,
        step: data.step,
        frontier,
        candidates: candidates.map((c) => ({ person: c.person, count: c.count, bestConfWithFrontier: c.bestConfWithFrontier, evidence: [...c.evidence] })),
        ...(outcome.budgetExhausted !== undefined ? { budgetExhausted: outcome.budgetExhausted } : {}),
        usage: { ...outcome.usage, cacheHit: false },
        ...worldOf(this.ports.localWorld),
      });
  }
}
