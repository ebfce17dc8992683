import { RetrievalHit, RetrievalHitV1, RetrievalMiss, RetrievalMissV1, retrievalMethodV1 } from '@openpaw/contracts';
import { isReplyOf, type Reply, replyTo } from '@openpaw/messaging';

/**
 * A retrieval reply followed by its deprecated v1 (contracts/README.md), for subscribers that have
 * not moved to v2, when v1 can name the candidate's method. Derived at publishing, never kept: the
 * kept reply is v2 only.
 */
export function withDeprecatedVersions(commandId: string, reply: Reply): Reply[] {
  if (isReplyOf(reply, RetrievalHit)) {
    const v1 = retrievalMethodV1.safeParse(reply.data.candidate.method);
    return v1.success ? [reply, replyTo(commandId, RetrievalHitV1, { ...reply.data, candidate: { ...reply.data.candidate, method: v1.data } })] : [reply];
  }
  if (isReplyOf(reply, RetrievalMiss)) {
    const top = reply.data.topCandidate;
    if (top === null) return [reply, replyTo(commandId, RetrievalMissV1, { ...reply.data, topCandidate: null })];
    const v1 = retrievalMethodV1.safeParse(top.method);
    return v1.success ? [reply, replyTo(commandId, RetrievalMissV1, { ...reply.data, topCandidate: { ...top, method: v1.data } })] : [reply];
  }
  return [reply];
}
