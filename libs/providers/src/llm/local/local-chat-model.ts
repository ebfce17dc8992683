import { ProviderError } from '../errors.js';
import { abortFailure } from '../provider-failure.js';
import type { ChatMessage, ChatModel, ChatModelRequest, ChatModelResponse } from '../port.js';
import type * as MathSolverModule from './math-solver.js';
import type { MathSolution } from './math-solver.js';
import { mayHoldMaths } from '@openpaw/maths/screen';
import { asksForSolution, fillSchema } from './schema-filler.js';
import { TextFacts } from './text-facts.js';

export const LOCAL_MODEL_ID = 'local/deterministic';

type MathSolver = typeof MathSolverModule;
let mathSolver: Promise<MathSolver> | undefined;

/**
 * The maths engine (mathjs, nerdamer: ~110 MB per process, seconds of synchronous module evaluation
 * that stall everything else the process does) loads on the first request that may hold maths, not
 * with @openpaw/providers: every service imports the providers, few ever ask the local model maths.
 */
function loadMathSolver(): Promise<MathSolver> {
  mathSolver ??= import('./math-solver.js');
  return mathSolver;
}

/**
 * The local default LLM (`local/...`): no network, no account, deterministic, and computed from its
 * input. It solves school maths with the offline maths engine (libs/maths: worked steps and a
 * checked answer) and says "cannot solve" otherwise; for other requests it extracts from the prompt
 * (key sentences and terms), and structured requests get their schema filled from the prompt's
 * content (see schema-filler.ts). It does not reason, paraphrase, or know anything not in the prompt.
 */
export class LocalChatModel implements ChatModel {
  readonly provider = 'local';
  readonly hasDefaultCredentials = true;

  /** `loadSolver`: how the maths engine is loaded (once per process by default). */
  constructor(private readonly loadSolver: () => Promise<MathSolver> = loadMathSolver) {}

  async complete(request: ChatModelRequest): Promise<ChatModelResponse> {
    const aborted = abortFailure(request.signal, this.provider);
    if (aborted !== undefined) throw aborted;
    // It reads text only: an image it cannot see must not be answered as if it had been read.
    if (request.messages.some((m) => (m.images?.length ?? 0) > 0)) throw new ProviderError('bad_request', this.provider, 'the local model reads no images; configure a vision model (openai, anthropic or gemini)');
    const content = contentText(request.messages);
    const users = request.messages.filter((m) => m.role === 'user').map((m) => m.content);
    // The engine only for a worked-solution schema, or a message that may hold maths: a quiz, a
    // summary or a question in prose never waits for it (nor does anything else in the process).
    const wantsEngine = request.responseSchema !== undefined ? asksForSolution(request.responseSchema.schema) : users.some(mayHoldMaths);
    const engine = wantsEngine ? await this.loadSolver() : undefined;
    const problem = engine === undefined ? (users.at(-1) ?? '') : problemText(users, engine.findMathCandidate);
    // Solved ahead (the engine runs on a worker thread, asynchronously) where the reply will use it.
    const solution = engine === undefined || (request.responseSchema === undefined && engine.findMathCandidate(problem) === undefined) ? undefined : await engine.solveMathProblem(problem);
    const solve = (): MathSolution => {
      if (solution === undefined) throw new Error('the maths engine was not loaded for this request');
      return solution;
    };
    const text =
      request.responseSchema !== undefined
        ? JSON.stringify(fillSchema(request.responseSchema.schema, content, solve))
        : solution !== undefined
          ? solutionText(solution)
          : extractiveReply(content);
    return {
      text,
      model: request.model,
      usage: { inputTokens: approximateTokens(request.messages.map((m) => m.content).join('\n')), outputTokens: approximateTokens(text) },
      finishReason: 'stop',
    };
  }
}

/** The problem is the latest user message with math in it (a re-ask message has none), else the latest user message. */
function problemText(users: readonly string[], findMathCandidate: MathSolver['findMathCandidate']): string {
  return [...users].reverse().find((text) => findMathCandidate(text) !== undefined) ?? users.at(-1) ?? '';
}

/** What structured answers draw on: the user turns, or the system turns when the users carry no content. */
function contentText(messages: readonly ChatMessage[]): string {
  const users = messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n');
  if (!new TextFacts(users).isEmpty) return users;
  return messages.map((m) => m.content).join('\n');
}

function solutionText(solution: MathSolution): string {
  if (!solution.canSolve) {
    return `${LOCAL_MODEL_ID} cannot solve this problem: ${solution.reason}.`;
  }
  const steps = solution.steps.map((step, i) => `${i + 1}. ${step.title}: ${step.detail}`).join('\n');
  return `Worked solution (${LOCAL_MODEL_ID}, computed by the OpenPaw maths engine):\n${steps}\nFinal answer: ${solution.finalAnswer}`;
}

function extractiveReply(content: string): string {
  const facts = new TextFacts(content);
  if (facts.isEmpty) {
    return `${LOCAL_MODEL_ID} is a deterministic stand-in, not a language model: it found no content sentences to extract from, and it cannot compose free text.`;
  }
  return [
    `${LOCAL_MODEL_ID} is a deterministic stand-in, not a language model; this reply is extracted from the input.`,
    `Key points: ${facts.summary(3)}`,
    `Key terms: ${facts.terms.slice(0, 8).join(', ')}.`,
  ].join('\n');
}

function approximateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
