import { type ChatCompletionRequest, type ScriptedReply, schemaFields } from '../../e2e/scripted-model-server.js';

/** A call of the artifact agent: its plan, its generation, or a grounded chat answer. */
export type StudyCall = 'plan' | 'generate' | 'chat';

/** How a scripted call misbehaves: output that misses the artifact's schema, the API unavailable (503), or a correct answer after 4 s. */
export type StudyFault = 'missing_field' | 'unavailable' | 'slow';

const SLOW_REPLY_MS = 4_000;

/**
 * The script of a study-notes model: it answers the artifact agent's prompts from the chunks they
 * carry (one sentence per item, quoted as evidence, so citations resolve), and a test queues faults
 * for the next calls of a kind. A fault for a generation counts every request: the client re-asks
 * once after output that misses the schema, so one failed generation is two requests.
 */
export class StudyNotesModel {
  private readonly faults: Record<StudyCall, { fault: StudyFault; remaining: number }[]> = { plan: [], generate: [], chat: [] };

  failNext(call: StudyCall, requests: number, fault: StudyFault): void {
    this.faults[call].push({ fault, remaining: requests });
  }

  clearFaults(): void {
    for (const queue of Object.values(this.faults)) queue.length = 0;
  }

  readonly answer = (request: ChatCompletionRequest): ScriptedReply => {
    const fields = schemaFields(request);
    const call: StudyCall = fields.includes('concepts') ? 'plan' : fields.length > 0 ? 'generate' : 'chat';
    const fault = this.takeFault(call);
    if (fault === 'unavailable') return { status: 503, message: 'The server is overloaded' };
    if (fault === 'missing_field') return { content: JSON.stringify({ items: [] }) };
    const answer = this.answerFrom(request, call, fields);
    return fault === 'slow' ? { ...answer, delayMs: SLOW_REPLY_MS } : answer;
  };

  private answerFrom(request: ChatCompletionRequest, call: StudyCall, fields: readonly string[]): ScriptedReply {
    const sources = request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
    const sentences = [...sources.matchAll(/^Chunk \d+: (.*)$/gm)].flatMap((m) => (m[1] ?? '').split(/(?<=[.!?])\s+/)).filter((s) => s.trim() !== '');
    const count = Number(/Create (?:exactly|a plan for) (\d+)/.exec(sources)?.[1] ?? '3');
    const pick = (i: number): string => sentences[i % sentences.length] ?? '';
    const items = Array.from({ length: count }, (_, i) => i);
    if (call === 'chat') return { content: chatAnswer(request, sentences) };
    if (call === 'plan') return { content: JSON.stringify({ title: 'Study notes', concepts: items.map((i) => pick(i).split(' ').slice(0, 4).join(' ')) }) };
    if (fields.includes('questions')) {
      const questions = items.map((i) => ({
        question: `Which statement do the notes make as point ${i + 1}?`,
        options: [0, 1, 2, 3].map((k) => pick(i + k)),
        correct_answer: pick(i),
        explanation: `The notes say: ${pick(i)}`,
        evidence: pick(i),
      }));
      return { content: JSON.stringify({ questions }) };
    }
    if (fields.includes('flashcards')) {
      return { content: JSON.stringify({ flashcards: items.map((i) => ({ front: `Point ${i + 1}`, back: pick(i), evidence: pick(i) })) }) };
    }
    return {
      content: JSON.stringify({ title: 'Study notes', summary: `${pick(0)} ${pick(1)}`, key_points: items.map((i) => ({ point: pick(i), evidence: pick(i) })) }),
    };
  }

  private takeFault(call: StudyCall): StudyFault | undefined {
    const next = this.faults[call][0];
    if (next === undefined) return undefined;
    next.remaining -= 1;
    if (next.remaining <= 0) this.faults[call].shift();
    return next.fault;
  }
}

/** The sentence sharing most words with the question, cited as chunk [1]. */
function chatAnswer(request: ChatCompletionRequest, sentences: readonly string[]): string {
  const question = (request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '').split('\n')[0] ?? '';
  const words = new Set(question.toLowerCase().match(/[a-z]{4,}/g) ?? []);
  const score = (s: string): number => (s.toLowerCase().match(/[a-z]{4,}/g) ?? []).filter((w) => words.has(w)).length;
  const best = [...sentences].sort((a, b) => score(b) - score(a))[0];
  return best === undefined ? 'The notebook has no sources on this.' : `${best} [1]`;
}
