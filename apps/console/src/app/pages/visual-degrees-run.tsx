import { useEffect, useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { readEventStream } from '../api/event-stream.js';
import { readOnceProjected } from '../api/projection.js';
import { errorMessage } from '../api/resources.js';
import type { operations } from '../api/schema.js';
import { StateBadge } from '../components/state-badge.js';
import { hrefOf } from '../routes.js';

/** A frame of the run's event stream, as the gateway documents it (generated from the contract). */
type StreamFrame = operations['VisualDegreesController_events']['responses'][200]['content']['text/event-stream'];
type EvidenceData = Extract<StreamFrame, { event: 'evidence' }>['data'];
/** An evidence card as the stream sends it (spec 03): the verified link, its best image and both confidences. */
type EvidenceCard = Exclude<EvidenceData, { partial: true }>;
/** Partial evidence (spec 03 S1): photos of one side without the other; not a link. */
type PartialEvidence = Extract<EvidenceData, { partial: true }>;

interface Progress {
  readonly status?: string;
  readonly path: readonly string[];
  readonly evidence: readonly EvidenceCard[];
  readonly partial: readonly PartialEvidence[];
  readonly ending?: { readonly kind: 'final' | 'no_path' | 'error' | 'cancelled'; readonly detail: string; readonly knownNames?: readonly string[] };
  /** What the service searched, when it is the local demo world (e.g. "local demo world of 24 invented people"). */
  readonly world?: string;
}

/** A recognition confidence, or that the person was not recognised at all. */
const confidenceText = (confidence: number | null): string => (confidence === null ? 'not recognised' : `${confidence.toFixed(1)} %`);

const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** The description of the world an event names (`final`, `no_path`), if any. */
const worldOf = (data: Record<string, unknown>): string | undefined => {
  const world = data['world'];
  return typeof world === 'object' && world !== null && typeof (world as Record<string, unknown>)['description'] === 'string' ? String((world as Record<string, unknown>)['description']) : undefined;
};

/** The stream's events folded into what the page shows. */
function applyEvent(progress: Progress, type: string, data: Record<string, unknown>): Progress {
  switch (type) {
    case 'status':
      return { ...progress, status: asText(data['message'] ?? data['phase'] ?? data['state'] ?? '') };
    case 'evidence': {
      const evidence = data as unknown as EvidenceData;
      return 'partial' in evidence ? { ...progress, partial: [...progress.partial, evidence] } : { ...progress, evidence: [...progress.evidence, evidence] };
    }
    case 'path_update':
      return { ...progress, path: Array.isArray(data['path']) ? data['path'].map(asText) : progress.path };
    case 'final': {
      const world = worldOf(data) ?? progress.world;
      const detail = world === undefined ? 'Chain found.' : `Chain found in the ${world}.`;
      return { ...progress, world, path: Array.isArray(data['path']) ? data['path'].map(asText) : progress.path, ending: { kind: 'final', detail } };
    }
    case 'no_path': {
      const knownNames = Array.isArray(data['knownNames']) ? data['knownNames'].map(asText) : undefined;
      const ending = { kind: 'no_path' as const, detail: asText(data['message'] ?? data['reason'] ?? 'no chain'), ...(knownNames === undefined ? {} : { knownNames }) };
      return { ...progress, world: worldOf(data) ?? progress.world, ending };
    }
    case 'error':
      return { ...progress, ending: { kind: 'error', detail: `${asText(data['message'] ?? 'The run failed.')}${data['reason'] === undefined ? '' : ` (${asText(data['reason'])})`}` } };
    case 'cancelled':
      return { ...progress, ending: { kind: 'cancelled', detail: asText(data['message'] ?? 'The investigation was cancelled.') } };
    default:
      return progress;
  }
}

/**
 * An evidence card's picture: the thumbnail the service stored, shown from the short-lived URL the
 * gateway signs for this thumbnail and this user (the image's own host is never contacted), credited
 * to its source page.
 */
function EvidenceThumbnail({ runId, card }: { runId: string; card: EvidenceCard }) {
  const client = useGatewayClient();
  const [url, setUrl] = useState<string | undefined>();
  const thumbnail = card.thumbnail ?? undefined;

  useEffect(() => {
    if (thumbnail === undefined) return undefined;
    const abort = new AbortController();
    void (async () => {
      const { data } = await client.GET('/visual-degrees/{id}/evidence/{thumbnail}', { params: { path: { id: runId, thumbnail } }, signal: abort.signal });
      if (data !== undefined && !abort.signal.aborted) setUrl(data.url);
    })().catch(() => undefined);
    return () => abort.abort();
  }, [client, runId, thumbnail]);

  if (url === undefined) return null;
  return (
    <figure class="evidence-thumbnail">
      <img src={url} alt={`${card.from} and ${card.to}, recognised together`} data-evidence-thumbnail />
      <figcaption>
        {card.sourcePageUrl === null ? (
          'Source page unknown'
        ) : (
          <>
            From{' '}
            <a href={card.sourcePageUrl} rel="noreferrer noopener" target="_blank">
              {card.sourcePageUrl}
            </a>
          </>
        )}
      </figcaption>
    </figure>
  );
}

/** One visual degrees run, live: the chain growing on `GET /visual-degrees/{id}/events`, an evidence card per verified link. */
export function VisualDegreesRunPage({ runId }: { runId: string }) {
  const client = useGatewayClient();
  const [progress, setProgress] = useState<Progress>({ path: [], evidence: [], partial: [] });
  const [state, setState] = useState<{ state: string; terminal: boolean } | undefined>();
  const [problem, setProblem] = useState<string | undefined>();

  useEffect(() => {
    const abort = new AbortController();
    setProgress({ path: [], evidence: [], partial: [] });
    const readState = async (): Promise<void> => {
      const { data } = await readOnceProjected(() => client.GET('/visual-degrees/{id}', { params: { path: { id: runId } }, signal: abort.signal }));
      if (data !== undefined) setState({ state: data.state, terminal: data.terminal });
      const world = data?.view?.world?.description;
      if (world !== undefined) setProgress((current) => ({ ...current, world }));
    };
    void (async () => {
      await readState();
      const { data: body, error } = await client.GET('/visual-degrees/{id}/events', { params: { path: { id: runId } }, parseAs: 'stream', signal: abort.signal });
      if (body === undefined || body === null) throw new Error(errorMessage(error, 'The run could not be followed.'));
      await readEventStream(body, (event) => setProgress((current) => applyEvent(current, event.event, JSON.parse(event.data) as Record<string, unknown>)));
      await readState();
    })().catch((error: unknown) => {
      if (!abort.signal.aborted) setProblem(error instanceof Error ? error.message : 'The run could not be followed.');
    });
    return () => abort.abort();
  }, [client, runId]);

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Visual degrees</h1>
      {problem !== undefined && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <p role="status" aria-live="polite" class="run-state">
        {state === undefined ? 'Loading…' : <StateBadge state={state.state} terminal={state.terminal} />}
        {progress.status === undefined || progress.status === '' ? '' : ` — ${progress.status}`}
      </p>
      {progress.world !== undefined && (
        <p class="hint" data-world>
          Searched the {progress.world}: the people and photos are generated, not real.
        </p>
      )}
      <p>
        <a href={hrefOf({ page: 'run', runId })}>The run's state diagram and timeline</a>
      </p>
      <h2>Chain so far</h2>
      <ol class="chain" aria-label="Chain so far">
        {progress.path.map((person, index) => (
          <li key={`${index}-${person}`}>{person}</li>
        ))}
      </ol>
      {progress.ending !== undefined && (
        <p data-ending={progress.ending.kind} class={progress.ending.kind === 'final' ? '' : 'error'}>
          {progress.ending.detail}
        </p>
      )}
      {progress.ending?.knownNames !== undefined && (
        <>
          <h2>Names this world knows</h2>
          <ul class="known-names" aria-label="Names this world knows">
            {progress.ending.knownNames.map((name) => (
              <li key={name}>{name}</li>
            ))}
          </ul>
        </>
      )}
      <h2>Evidence</h2>
      {progress.evidence.length === 0 && <p>No verified link yet.</p>}
      {progress.partial.map((seen) => (
        <p key={`partial ${seen.from}→${seen.to}`} class="partial-evidence" data-partial-evidence>
          Not a link: {seen.images} photo(s) of {seen.from} or {seen.to} without both recognised at 80 % (best: {seen.from} {confidenceText(seen.confidenceFrom)}, {seen.to}{' '}
          {confidenceText(seen.confidenceTo)}).
        </p>
      ))}
      <ul class="evidence-cards">
        {progress.evidence.map((card) => (
          <li key={`${card.from}→${card.to}`} class="evidence-card">
            <strong>
              {card.from} → {card.to}
            </strong>
            <EvidenceThumbnail runId={runId} card={card} />
            <dl class="run-facts">
              <dt>{card.from} recognised at</dt>
              <dd>{card.confidenceFrom.toFixed(1)} %</dd>
              <dt>{card.to} recognised at</dt>
              <dd>{card.confidenceTo.toFixed(1)} %</dd>
              <dt>Link confidence</dt>
              <dd>{card.edgeConf.toFixed(1)} %</dd>
              <dt>Image</dt>
              <dd>
                <code>{card.imageUrl}</code>
                {card.sourcePageUrl !== null && (
                  <>
                    {' '}
                    (<a href={card.sourcePageUrl} rel="noreferrer noopener" target="_blank">source page</a>)
                  </>
                )}
              </dd>
            </dl>
          </li>
        ))}
      </ul>
    </section>
  );
}
