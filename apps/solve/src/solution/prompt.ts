import type { ChatMessage } from '@openpaw/providers';
import type { ProblemSignature } from '@openpaw/contracts';
import { z } from 'zod';

/**
 * The version of the solve prompt and answer schema. It is recorded in every solution's provenance,
 * so a change to the wording, the schema or the rules below MUST bump it.
 */
export const PROMPT_VERSION = 'solve-v1';

/**
 * What the model answers. The field names are those the local deterministic model recognises as a
 * worked solution (`steps` + `final_answer` + `can_solve`), and what any real model is asked for.
 */
export const solutionAnswerSchema = z.object({
  can_solve: z.boolean().describe('false when the problem cannot be solved reliably'),
  reason: z.string().nullable().describe('when can_solve is false: why'),
  steps: z
    .array(
      z.object({
        title: z.string().describe('a short name for the step'),
        detail: z.string().describe('the working of the step; math in LaTeX between \\( and \\)'),
      }),
    )
    .max(40),
  final_answer: z.string().nullable().describe('the final answer alone, e.g. \\(x = 2\\); null when can_solve is false'),
});
export type SolutionAnswer = z.infer<typeof solutionAnswerSchema>;

const SYSTEM_PROMPT = [
  'You are a careful tutor. Solve the problem the user sends, step by step, so that a student can follow every step.',
  'Rules:',
  '- One step per operation or idea; each step has a short title and its working.',
  '- Write mathematics in LaTeX between \\( and \\) (inline) or \\[ and \\] (display). Write prose as plain text.',
  '- Never write HTML, Markdown links, URLs, images or code.',
  '- End with the final answer alone in final_answer.',
  '- If the problem is not solvable, is ambiguous, or you are not sure of the answer, set can_solve to false, give the reason, and leave steps empty and final_answer null.',
].join('\n');

/** Builds the versioned prompt from the problem signature: rules in the system turn, the problem in the user turn. */
export function buildSolvePrompt(signature: ProblemSignature): ChatMessage[] {
  const subject = signature.topicTags.subject.trim();
  const keywords = signature.topicTags.keywords.filter((k) => k.trim() !== '');
  const context = [
    subject === '' ? undefined : `Subject: ${subject}.`,
    keywords.length === 0 ? undefined : `Topics: ${keywords.join(', ')}.`,
  ].filter((line): line is string => line !== undefined);
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: [...context, 'Problem:', signature.normalizedText].join('\n') },
  ];
}
