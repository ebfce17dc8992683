import { EdgeRefuted, EdgeVerified, type MessageData, type VerifyEdge } from '@openpaw/contracts';
import { answerOnceWith, type Reply, replyTo } from '@openpaw/messaging';
import { lookUp, oriented, withoutPicturesOf } from '../../domain/evidence-cache.js';
import { type LocalWorldRoster, namesNotIn, worldOf } from '../../domain/local-world-roster.js';
import { type PartialEvidence, verifyEdge, type VerifiedEdge } from '../../domain/edge-verification.js';
import { ImageObserver, type StepUsage } from '../../observation/image-observer.js';
import { StepProviderFailure } from '../../observation/step-failure.js';
import type { VisualStepPorts } from '../../ports.js';
import { RunMemoryReplies } from '../../memory/run-memory-replies.js';
import type { VisualCommand } from '../command.js';
import { stepFailedReply } from '../step-failed.js';

const NO_USAGE: StepUsage = { searchCalls: 0, recognitionCalls: 0, imagesSkipped: 0 };

/**
 * VerifyEdge (S1, S4, S5): is there an image showing both persons at or above the threshold?
 *
 * Over the local demo world, a person asked for by a name it does not know is refuted at once with
 * `notInWorld` (the names it knows), and every reply names the world.
 *
 * With both ids known, asks the run's memory first (`edge:{from}:{to}`, written by this run's discovery:
 * a candidate or the target seen beside the frontier verifies at no cost), then the evidence cache shared
 * across runs (a verified or refuted pair costs nothing); else searches the command's queries,
 * recognises the first N images of each (deduplicated across the run), and applies the edge rule. A
 * verified edge goes to run memory (`edge:{from}:{to}`, and `path` when the command carries the chain so
 * far) and to the evidence cache; a refutation goes to the cache only when nothing cut it short: no
 * budget ran out and every image found was fetched and read. The reply is kept in run memory before it is returned,
 * so a redelivered command gets the same reply (same id) with no new provider call.
 */
export class VerifyEdgeHandler {
  private readonly observer: ImageObserver;

  constructor(private readonly ports: VisualStepPorts) {
    this.observer = new ImageObserver(ports);
  }

  async execute(command: VisualCommand<typeof VerifyEdge>): Promise<Reply> {
    const { data, commandId } = command;
    const run = { sessionId: data.sessionId, runId: data.runId };
    return answerOnceWith(new RunMemoryReplies(this.ports.memory, run), commandId, () => this.decide(command));
  }

  private async decide({ commandId, data, signal }: VisualCommand<typeof VerifyEdge>): Promise<Reply> {
    const run = { sessionId: data.sessionId, runId: data.runId };
    const recognizer = this.ports.recognizer.provider;
    const roster = this.ports.localWorld;
    // A person known by name only (as the user asked) whom the local demo world does not know: no search
    // can find them, so none is made. One the recogniser identified is in the world by definition.
    const askedByName = [data.from, data.to].filter((p) => p.celebrityId === undefined).map((p) => p.name);
    const unknown = roster === undefined ? [] : namesNotIn(roster, askedByName);
    if (roster !== undefined && unknown.length > 0) {
      return refuted(commandId, data, 'no_evidence', undefined, [], NO_USAGE, false, roster, { names: unknown, known: [...roster.names] });
    }
    // A person taken down is never verified again: not from this run's memory, the cache or a search.
    const takenDown = await this.ports.takedowns.ids(recognizer);
    if ([data.from.celebrityId, data.to.celebrityId].some((id) => id !== undefined && takenDown.has(id))) {
      return refuted(commandId, data, 'no_evidence', undefined, [], NO_USAGE, false, roster);
    }
    if (data.from.celebrityId !== undefined && data.to.celebrityId !== undefined) {
      // Nor is a kept photo that also shows someone taken down handed out again: the edge stands on the
      // photos left, or is searched again.
      const remembered = await this.rememberedEdge(data, data.from.celebrityId, data.to.celebrityId);
      const rememberedShown = remembered === undefined ? undefined : withoutPicturesOf(remembered, takenDown, data.threshold);
      if (rememberedShown !== undefined) return this.verified(commandId, data, rememberedShown, NO_USAGE, true);
      const cached = await lookUp(this.ports.cache, recognizer, data.from.celebrityId, data.to.celebrityId, data.threshold, data);
      const cachedShown = cached?.status === 'verified' ? withoutPicturesOf(cached.edge, takenDown, data.threshold) : undefined;
      if (cachedShown !== undefined) return this.verified(commandId, data, cachedShown, NO_USAGE, true);
      if (cached?.status === 'refuted') return refuted(commandId, data, 'no_evidence', undefined, [], NO_USAGE, true, roster);
    }
    let outcome;
    try {
      outcome = await this.observer.observe({ run, queries: data.queries, imagesPerQuery: data.imagesPerQuery, budget: data.budget, ...(signal === undefined ? {} : { signal }) });
    } catch (error) {
      if (error instanceof StepProviderFailure) return stepFailedReply(commandId, data, 'VerifyEdge', error);
      throw error;
    }
    const verdict = verifyEdge(outcome.observations, data.from, data.to, data.threshold);
    if (verdict.verified) {
      await this.ports.cache.put(recognizer, { status: 'verified', edge: verdict.edge });
      return this.verified(commandId, data, verdict.edge, outcome.usage, false);
    }
    // The reply names whom the photos showed at the threshold by their id (a one-sided run needs no check that B is a public figure then).
    const seen = { ...data, from: { ...data.from, ...verdict.from }, to: { ...data.to, ...verdict.to } };
    if (outcome.budgetExhausted !== undefined) return refuted(commandId, seen, 'budget_exhausted', outcome.budgetExhausted, verdict.partial, outcome.usage, false, roster);
    if (data.from.celebrityId !== undefined && data.to.celebrityId !== undefined && outcome.unusable.length === 0) {
      await this.ports.cache.put(recognizer, { status: 'refuted', ids: [data.from.celebrityId, data.to.celebrityId], threshold: data.threshold, queries: [...data.queries], imagesPerQuery: data.imagesPerQuery });
    }
    return refuted(commandId, seen, 'no_evidence', undefined, verdict.partial, outcome.usage, false, roster);
  }

  /** The edge this run already verified (either way round), at the command's threshold; undefined when unknown or expired. */
  private async rememberedEdge(data: MessageData<typeof VerifyEdge>, fromId: string, toId: string): Promise<VerifiedEdge | undefined> {
    const run = { sessionId: data.sessionId, runId: data.runId };
    const from = { name: data.from.name, celebrityId: fromId };
    const to = { name: data.to.name, celebrityId: toId };
    for (const [a, b] of [[from, to], [to, from]] as const) {
      const stored = await this.ports.memory.getEdge(run, a.celebrityId, b.celebrityId);
      if (stored !== undefined && stored.edgeConf >= data.threshold) return oriented({ from: a, to: b, edgeConf: stored.edgeConf, evidence: stored.evidence }, fromId);
    }
    return undefined;
  }

  private async verified(commandId: string, data: MessageData<typeof VerifyEdge>, edge: VerifiedEdge, usage: StepUsage, cacheHit: boolean): Promise<Reply> {
    const run = { sessionId: data.sessionId, runId: data.runId };
    await this.ports.memory.putEdge(run, edge.from.celebrityId, edge.to.celebrityId, { edgeConf: edge.edgeConf, evidence: edge.evidence });
    return replyTo(commandId, EdgeVerified, { runId: data.runId, commandId, step: data.step, edge: { ...edge, evidence: [...edge.evidence] }, usage: { ...usage, cacheHit }, ...worldOf(this.ports.localWorld) });
  }
}

function refuted(
  commandId: string,
  data: MessageData<typeof VerifyEdge>,
  reason: 'no_evidence' | 'budget_exhausted',
  budgetExhausted: 'search' | 'recognition' | undefined,
  partial: readonly PartialEvidence[],
  usage: StepUsage,
  cacheHit: boolean,
  roster: LocalWorldRoster | undefined,
  notInWorld?: { readonly names: readonly string[]; readonly known: readonly string[] },
): Reply {
  return replyTo(commandId, EdgeRefuted, {
      runId: data.runId,
      commandId,
      step: data.step,
      from: data.from,
      to: data.to,
      reason,
      ...(budgetExhausted !== undefined ? { budgetExhausted } : {}),
      partialEvidence: partial.slice(0, 20),
      usage: { ...usage, cacheHit },
      ...worldOf(roster),
      ...(notInWorld === undefined ? {} : { notInWorld: { names: [...notInWorld.names], known: [...notInWorld.known] } }),
    });
}
