import type { PaperSearch } from '../api/resources.js';

type Checkpoint = NonNullable<PaperSearch['checkpoint']>;
type Origin = NonNullable<Extract<Checkpoint, { kind: 'strategy_confirmation' }>['payload']['origin']>;
type Cuts = NonNullable<NonNullable<PaperSearch['result']>['metadata']['cuts']>;
type SourceReport = NonNullable<PaperSearch['result']>['metadata']['sourceReports'][number];

/** Where checkpoint 1's strategy came from, in words (the gateway's `origin`). */
export function originNote(origin: Origin | undefined): string | undefined {
  if (origin === undefined) return undefined;
  switch (origin.origin) {
    case 'planner_model':
      return `Proposed by the planner model${origin.model === null ? '' : ` ${origin.model}`}.`;
    case 'local_rules':
      return 'Proposed by local rules: no planner model is configured, so no model was asked.';
    case 'user_edit':
      return 'Your edit at checkpoint 1.';
  }
}

type Unavailable = NonNullable<NonNullable<PaperSearch['result']>['storedPapersUnavailable']>;

/** What limits cut from a collection, one sentence each, and why its stored papers are not shown when they cannot be; `[]` when nothing was cut. */
export function cutNotes(cuts: Cuts | undefined, papersTrimmed: boolean, unavailable?: Unavailable): string[] {
  const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
  return [
    ...(unavailable === undefined
      ? []
      : [
          `The search's stored list of ${unavailable.storedPapers} papers ${unavailable.reason === 'gone' ? 'was deleted after its retention period' : 'could not be read'}: only the papers its view kept are shown. Search again for the whole list.`,
        ]),
    ...(cuts !== undefined && cuts.papersLeftOut > 0 ? [`${count(cuts.papersLeftOut, 'paper was', 'papers were')} found but left out: a message carries only so many papers.`] : []),
    ...(cuts !== undefined && cuts.abstractsShortened > 0 ? [`${count(cuts.abstractsShortened, 'abstract was', 'abstracts were')} shortened.`] : []),
    ...(cuts !== undefined && cuts.authorListsShortened > 0 ? [`${count(cuts.authorListsShortened, 'author list was', 'author lists were')} cut to the first 50 names.`] : []),
    ...(papersTrimmed ? ['The papers shown are shortened to fit one message: abstracts are left out.'] : []),
  ];
}

/** What a source's local filter dropped (the contracts' `describeLocalDrops`, which the bundle does not import); `[]` when nothing. */
export function localDropNotes(report: Pick<SourceReport, 'source' | 'droppedLocally'>): string[] {
  const dropped = report.droppedLocally;
  if (dropped === undefined || dropped.count === 0) return [];
  const noAbstract = dropped.withoutAbstract === 0 ? '' : ` (${dropped.withoutAbstract === dropped.count ? (dropped.count === 1 ? 'it' : 'all') : dropped.withoutAbstract} had no abstract: only the title was matched)`;
  return [`${report.source}: ${dropped.count} ${dropped.count === 1 ? 'result' : 'results'} dropped by the filter applied locally${noAbstract}`];
}
