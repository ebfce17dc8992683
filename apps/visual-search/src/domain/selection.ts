import { fallbackOrder, verificationQueries } from '@openpaw/contracts';
import { z } from 'zod';
import { type IdentifiedPerson, isPerson, nameKey, type PersonRef } from './person.js';

export interface SelectionCandidate {
  readonly person: IdentifiedPerson;
  readonly count: number;
  readonly bestConfWithFrontier: number;
}

export interface SelectionInput {
  readonly target: PersonRef;
  readonly frontier: IdentifiedPerson;
  readonly candidates: readonly SelectionCandidate[];
  readonly hopsRemaining: number;
  readonly budgetsRemaining: { readonly searchCalls: number; readonly recognitionCalls: number; readonly llmCalls: number };
}

export interface Selection {
  readonly nextCandidates: readonly IdentifiedPerson[];
  readonly searchQueries: readonly string[];
  readonly narration: string;
}

export type SelectionParse = { readonly ok: true; readonly selection: Selection } | { readonly ok: false; readonly reason: 'invalid_json' | 'invalid_choice'; readonly detail: string };

/** The LLM's reply, exactly: no other keys, 1–2 candidates, at most 4 queries. */
const llmSelection = z.strictObject({
  nextCandidates: z.array(z.string().min(1).max(200)).min(1).max(2),
  searchQueries: z.array(z.string().trim().min(1).max(300)).max(4),
  narration: z.string().max(500),
});

/** The target among the candidates, when discovery saw it beside the frontier: it is the choice, no LLM asked. */
export function targetSelection(input: SelectionInput): Selection | undefined {
  const target = input.candidates.find((c) => isPerson(c.person, input.target));
  if (target === undefined) return undefined;
  return {
    nextCandidates: [target.person],
    searchQueries: verificationQueries(input.frontier.name, target.person.name),
    narration: `${target.person.name} was seen beside ${input.frontier.name}; verifying that edge…`,
  };
}

/** S3's fallback: the best candidate by the deterministic order (best confidence, then count, then id). */
export function fallbackSelection(input: SelectionInput): Selection {
  const best = [...input.candidates].sort(fallbackOrder)[0];
  if (best === undefined) throw new Error('selection needs at least one candidate');
  return {
    nextCandidates: [best.person],
    searchQueries: verificationQueries(input.frontier.name, best.person.name),
    narration: `Trying an expansion via ${best.person.name}…`,
  };
}

/**
 * Parses the LLM's choice strictly: the reply must be one JSON object of the expected shape (a single
 * surrounding markdown code fence is tolerated, nothing else), and every chosen candidate must be one
 * of the offered candidates, named by celebrity id or exact name. Anything else is refused with the
 * reason, and the caller falls back.
 */
export function parseSelection(text: string, input: SelectionInput): SelectionParse {
  const body = text.trim().replace(/^```(?:json)?\s*\n([\s\S]*)\n```$/u, '$1').trim();
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, reason: 'invalid_json', detail: 'the reply is not a JSON document' };
  }
  const parsed = llmSelection.safeParse(json);
  if (!parsed.success) return { ok: false, reason: 'invalid_json', detail: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ').slice(0, 300) };
  const chosen: IdentifiedPerson[] = [];
  for (const ref of parsed.data.nextCandidates) {
    const match = input.candidates.find((c) => c.person.celebrityId === ref) ?? input.candidates.find((c) => nameKey(c.person.name) === nameKey(ref));
    if (match === undefined) return { ok: false, reason: 'invalid_choice', detail: `"${ref.slice(0, 80)}" is not one of the candidates` };
    if (!chosen.some((p) => p.celebrityId === match.person.celebrityId)) chosen.push(match.person);
  }
  const first = chosen[0];
  const searchQueries = parsed.data.searchQueries.length > 0 || first === undefined ? parsed.data.searchQueries : verificationQueries(input.frontier.name, first.name);
  return { ok: true, selection: { nextCandidates: chosen, searchQueries, narration: parsed.data.narration.trim() } };
}

/** The prompt of S3: the state the spec lists, and the exact JSON to answer with. */
export function selectionPrompt(input: SelectionInput): { readonly role: 'system' | 'user'; readonly content: string }[] {
  const lines = [...input.candidates]
    .sort(fallbackOrder)
    .map((c) => `- ${c.person.name} (id ${c.person.celebrityId}): ${c.count} image(s) with ${input.frontier.name}, best confidence ${c.bestConfWithFrontier.toFixed(1)}%`);
  return [
    {
      role: 'system',
      content:
        'You steer a search for a chain of people who were photographed together, from a frontier person toward a target person. ' +
        'Choose which candidate to expand next. Answer with one JSON object and nothing else: ' +
        '{"nextCandidates": [1 or 2 candidate ids, best first], "searchQueries": [up to 4 image search queries to verify the next edge], "narration": "one short sentence for the user"}.',
    },
    {
      role: 'user',
      content: [
        `Target: ${input.target.name}`,
        `Frontier: ${input.frontier.name} (id ${input.frontier.celebrityId})`,
        `Hops remaining: ${input.hopsRemaining}`,
        `Budget remaining: ${input.budgetsRemaining.searchCalls} searches, ${input.budgetsRemaining.recognitionCalls} recognitions, ${input.budgetsRemaining.llmCalls} LLM calls`,
        'Candidates:',
        ...lines,
      ].join('\n'),
    },
  ];
}
