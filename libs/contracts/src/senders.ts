import { catalog } from './catalog.js';
import type { AnyMessageDefinition } from './message-definition.js';
import { AddSource, AnswerChat, ArtifactGenerated, ArtifactJobProgress, ArtifactPlanned, ArtifactStepFailed, ArtifactValidated, CaptureSnapshot, ChatAnswered, ChatFailed, GenerateArtifact, PlanArtifact, SnapshotCaptured, SourceIndexed, SourceRejected, ValidateArtifact } from './messages/artifacts.js';
import { AssetVersionCreated, ProblemRegistered, RegisterSolution, RenderPriorityVideo, RenderVideo, VideoRendered, VideoRenderFailed } from './messages/assets.js';
import { MediaNormalized, MediaRejected, NormalizeMedia } from './messages/ingestion.js';
import {
  BuildSearchStrategy,
  DeduplicatePapers,
  ImportLibraryReferences,
  LibraryReferencesImported,
  OrganisePapers,
  PaperSearchIntentParsed,
  PaperSearchStepFailed,
  PaperSourcesSearched,
  PapersDeduplicated,
  PapersOrganised,
  PapersScored,
  ParsePaperSearchIntent,
  ScorePapers,
  SearchPaperSources,
  SearchStrategyBuilt,
} from './messages/paper-search.js';
import {
  ExecuteResearchLeg,
  ExecuteResearchLegs,
  GenerateResearchTitle,
  ResearchCompleted,
  ResearchFailed,
  ResearchLegCompleted,
  ResearchLegFailed,
  ResearchLegStarted,
  ResearchSynthesisFailed,
  ResearchSynthesized,
  ResearchTitleGenerated,
  SynthesizeResearch,
} from './messages/research-flow.js';
import { ResearchProviderKeyTested, TestResearchProviderKey } from './messages/research-keys.js';
import { ResearchWebhookAttempted, ResearchWebhookSet, SetResearchWebhook, TestResearchWebhook } from './messages/research-webhook.js';
import { DocumentIndexed, IndexDocument, ProblemWithdrawn, RetrievalHit, RetrievalHitV1, RetrievalMiss, RetrievalMissV1, SearchSolutions, WithdrawProblem } from './messages/retrieval.js';
import { RunEnded } from './messages/run-ended.js';
import { GenerateSolution, SolutionFailed, SolutionGenerated } from './messages/solve.js';
import { CandidatesDiscovered, DiscoverCandidates, EdgeRefuted, EdgeVerified, ExpansionSelected, SelectNextExpansion, TakeDownVisualPerson, VerifyEdge, VisualPersonTakenDown, VisualStepFailed } from './messages/visual-search.js';
import { CancelRun, ChildRunFinished, InputRefused, RunStateChanged, RunStateChangedV2, StartRun, SubmitRunInput } from './messages/workflow.js';

/**
 * Who sends each message of the catalog: the services whose code publishes it (a command's one
 * consumer is its context; its senders are here). The platform's NATS users may publish exactly
 * these subjects (deploy/src/nats-credentials.ts), so a message missing here is refused at the
 * broker: every message of the catalog has a sender (checked when this module loads), and
 * `deploy/src/nats-publish-permissions.spec.ts` checks each service's code names what it is said to send.
 *
 * Not listed, because it is not a sender of its own: the gateway's dead-letter redrive republishes a
 * dead letter to its original subject, whatever it was (deploy/README.md, "NATS credentials").
 */
export const MESSAGES_SENT_BY = {
  gateway: [StartRun, CancelRun, SubmitRunInput, AddSource, AnswerChat, CaptureSnapshot, ImportLibraryReferences, TakeDownVisualPerson, TestResearchProviderKey, SetResearchWebhook, TestResearchWebhook],
  // The sagas: each step's command, a run's state and end, child and background runs.
  coordinator: [
    StartRun,
    CancelRun,
    ChildRunFinished,
    RunStateChanged,
    RunStateChangedV2,
    InputRefused,
    RunEnded,
    NormalizeMedia,
    SearchSolutions,
    IndexDocument,
    GenerateSolution,
    RegisterSolution,
    RenderVideo,
    RenderPriorityVideo,
    CaptureSnapshot,
    PlanArtifact,
    GenerateArtifact,
    ValidateArtifact,
    ParsePaperSearchIntent,
    BuildSearchStrategy,
    SearchPaperSources,
    DeduplicatePapers,
    ScorePapers,
    OrganisePapers,
    DiscoverCandidates,
    SelectNextExpansion,
    VerifyEdge,
    ExecuteResearchLeg,
    ExecuteResearchLegs,
    SynthesizeResearch,
    GenerateResearchTitle,
    // A research run's end, which the research service hands to its user's webhook.
    ResearchCompleted,
    ResearchFailed,
  ],
  ingestion: [MediaNormalized, MediaRejected],
  // A superseded version is still produced beside its successor (contracts/README.md).
  // WithdrawProblem: the maths reading sweep (tools/maths-reindex.ts) runs as the retrieval service's user.
  retrieval: [RetrievalHit, RetrievalMiss, RetrievalHitV1, RetrievalMissV1, DocumentIndexed, ProblemWithdrawn, WithdrawProblem],
  solve: [SolutionGenerated, SolutionFailed],
  assets: [ProblemRegistered, AssetVersionCreated, VideoRendered, VideoRenderFailed],
  artifacts: [SourceIndexed, SourceRejected, SnapshotCaptured, ArtifactPlanned, ArtifactGenerated, ArtifactValidated, ArtifactJobProgress, ArtifactStepFailed, ChatAnswered, ChatFailed],
  research: [
    PaperSearchIntentParsed,
    SearchStrategyBuilt,
    PaperSourcesSearched,
    PapersDeduplicated,
    PapersScored,
    PapersOrganised,
    PaperSearchStepFailed,
    LibraryReferencesImported,
    ResearchLegStarted,
    ResearchLegCompleted,
    ResearchLegFailed,
    ResearchSynthesized,
    ResearchSynthesisFailed,
    ResearchTitleGenerated,
    ResearchProviderKeyTested,
    ResearchWebhookSet,
    ResearchWebhookAttempted,
  ],
  'visual-search': [CandidatesDiscovered, ExpansionSelected, EdgeVerified, EdgeRefuted, VisualStepFailed, VisualPersonTakenDown],
} as const satisfies Readonly<Record<string, readonly AnyMessageDefinition[]>>;

export type SendingService = keyof typeof MESSAGES_SENT_BY;

const sendersBySubject = new Map<string, SendingService[]>();
for (const [service, definitions] of Object.entries(MESSAGES_SENT_BY) as [SendingService, readonly AnyMessageDefinition[]][]) {
  for (const definition of definitions) {
    const senders = sendersBySubject.get(definition.subject) ?? [];
    if (senders.includes(service)) throw new Error(`MESSAGES_SENT_BY: ${service} lists ${definition.subject} twice`);
    sendersBySubject.set(definition.subject, [...senders, service]);
  }
}
const unsent = catalog.filter((definition) => !sendersBySubject.has(definition.subject)).map((definition) => definition.subject);
if (unsent.length > 0) throw new Error(`MESSAGES_SENT_BY names no sender of ${unsent.join(', ')}: say which service publishes each`);

/** The services that publish a message of the catalog (never empty). */
export function sendersOf(definition: AnyMessageDefinition): readonly SendingService[] {
  const senders = sendersBySubject.get(definition.subject);
  if (senders === undefined) throw new Error(`${definition.subject} is not in the catalog`);
  return senders;
}

/** The subjects a service publishes (empty for a name that sends nothing). */
export function subjectsSentBy(service: string): readonly string[] {
  const definitions: readonly AnyMessageDefinition[] = (MESSAGES_SENT_BY as Readonly<Record<string, readonly AnyMessageDefinition[]>>)[service] ?? [];
  return definitions.map((definition) => definition.subject);
}
