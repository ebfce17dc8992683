import { type ArtifactOptions, type ArtifactResult, type ArtifactType, flashcardsResult, quizResult, summaryResult } from '@openpaw/contracts';
import { requestedItems } from '../agent/prompts.js';

export interface ValidationReport {
  readonly valid: boolean;
  /** Every problem found, in order; the first is the job's error. */
  readonly errors: readonly string[];
}

const key = (text: string): string => text.trim().toLowerCase().replace(/\s+/g, ' ');

function citationErrors(label: string, chunkIds: readonly string[], snapshot: ReadonlySet<string>): string[] {
  if (chunkIds.length === 0) return [`${label}: cites no chunk of the snapshot`];
  const unknown = chunkIds.filter((id) => !snapshot.has(id));
  return unknown.length > 0 ? [`${label}: cites chunks outside the snapshot (${unknown.join(', ')})`] : [];
}

/** Quiz (spec 02 shape): the requested number of questions, each with 4 unique options, the correct answer among them, an explanation and citations. */
export function validateQuiz(result: ArtifactResult, options: ArtifactOptions, snapshot: ReadonlySet<string>): string[] {
  const parsed = quizResult.safeParse(result);
  if (!parsed.success) return ["Missing 'questions' field"];
  const errors: string[] = [];
  const { questions } = parsed.data;
  const expected = requestedItems('quiz', options);
  if (questions.length !== expected) errors.push(`expected ${expected} questions, got ${questions.length}`);
  const seen = new Map<string, number>();
  questions.forEach((q, i) => {
    const label = `question ${i + 1}`;
    if (q.question.trim() === '') errors.push(`${label}: the question is empty`);
    const earlier = seen.get(key(q.question));
    if (earlier !== undefined) errors.push(`${label}: repeats question ${earlier}`);
    else seen.set(key(q.question), i + 1);
    if (q.options.length !== 4) errors.push(`${label}: has ${q.options.length} options, needs exactly 4`);
    if (q.options.some((o) => o.trim() === '')) errors.push(`${label}: has an empty option`);
    if (new Set(q.options.map(key)).size !== q.options.length) errors.push(`${label}: the options are not unique`);
    if (!q.options.some((o) => o.trim() === q.correct_answer.trim())) errors.push(`${label}: correct_answer is not among the options`);
    if (q.explanation.trim() === '') errors.push(`${label}: the explanation is empty`);
    errors.push(...citationErrors(label, q.chunk_ids, snapshot));
  });
  return errors;
}

/** Flashcards: the requested number, each with a front and a different back, fronts unique, each cited. */
export function validateFlashcards(result: ArtifactResult, options: ArtifactOptions, snapshot: ReadonlySet<string>): string[] {
  const parsed = flashcardsResult.safeParse(result);
  if (!parsed.success) return ["Missing 'flashcards' field"];
  const errors: string[] = [];
  const { flashcards } = parsed.data;
  const expected = requestedItems('flashcards', options);
  if (flashcards.length !== expected) errors.push(`expected ${expected} flashcards, got ${flashcards.length}`);
  const seen = new Map<string, number>();
  flashcards.forEach((card, i) => {
    const label = `flashcard ${i + 1}`;
    if (card.front.trim() === '') errors.push(`${label}: the front is empty`);
    if (card.back.trim() === '') errors.push(`${label}: the back is empty`);
    if (card.front.trim() !== '' && key(card.front) === key(card.back)) errors.push(`${label}: the back repeats the front`);
    const earlier = seen.get(key(card.front));
    if (earlier !== undefined) errors.push(`${label}: repeats the front of flashcard ${earlier}`);
    else seen.set(key(card.front), i + 1);
    errors.push(...citationErrors(label, card.chunk_ids, snapshot));
  });
  return errors;
}

/** Summary: a title, a summary of substance, 1..requested unique key points, each cited, and the summary's own citations. */
export function validateSummary(result: ArtifactResult, options: ArtifactOptions, snapshot: ReadonlySet<string>): string[] {
  const parsed = summaryResult.safeParse(result);
  if (!parsed.success) return ["Missing 'summary' or 'key_points' field"];
  const errors: string[] = [];
  const { title, summary, key_points: points, chunk_ids: chunkIds } = parsed.data;
  if (title.trim() === '') errors.push('the title is empty');
  if (summary.trim().length < 20) errors.push('the summary is empty or too short');
  const expected = requestedItems('summary', options);
  if (points.length === 0 || points.length > expected) errors.push(`expected 1 to ${expected} key points, got ${points.length}`);
  const seen = new Map<string, number>();
  points.forEach((p, i) => {
    const label = `key point ${i + 1}`;
    if (p.point.trim() === '') errors.push(`${label}: is empty`);
    const earlier = seen.get(key(p.point));
    if (earlier !== undefined) errors.push(`${label}: repeats key point ${earlier}`);
    else seen.set(key(p.point), i + 1);
    errors.push(...citationErrors(label, p.chunk_ids, snapshot));
  });
  errors.push(...citationErrors('the summary', chunkIds, snapshot));
  return errors;
}

/** The top-level fields an artifact type's output must have (the validators' "Missing ... field" wording). */
const REQUIRED_FIELDS: Record<ArtifactType, { readonly fields: readonly string[]; readonly missing: string }> = {
  quiz: { fields: ['questions'], missing: "Missing 'questions' field" },
  flashcards: { fields: ['flashcards'], missing: "Missing 'flashcards' field" },
  summary: { fields: ['summary', 'key_points'], missing: "Missing 'summary' or 'key_points' field" },
};

/**
 * Why raw model output that failed the generation schema is invalid, in the validators' words, so a
 * schema failure reads like any validation failure ("Missing 'questions' field", spec 02).
 */
export function schemaErrorOf(type: ArtifactType, rawText: string, issues: readonly string[]): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawText);
  } catch {
    return 'the output is not a JSON object';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return REQUIRED_FIELDS[type].missing;
  }
  const fields = parsed as Record<string, unknown>;
  const { fields: required, missing } = REQUIRED_FIELDS[type];
  const arrayField = required.at(-1) ?? '';
  if (required.some((f) => fields[f] === undefined) || !Array.isArray(fields[arrayField])) return missing;
  return `the output did not match the ${type} schema: ${issues.slice(0, 5).join('; ')}`;
}

/** The validator of each artifact type. */
export function validateArtifact(type: ArtifactType, result: ArtifactResult, options: ArtifactOptions, snapshotChunkIds: readonly string[]): ValidationReport {
  const snapshot = new Set(snapshotChunkIds);
  const errors =
    type === 'quiz' ? validateQuiz(result, options, snapshot) : type === 'flashcards' ? validateFlashcards(result, options, snapshot) : validateSummary(result, options, snapshot);
  return { valid: errors.length === 0, errors };
}
