import type { ArtifactType } from '@openpaw/contracts';
import { type JsonObject, type StepLogEntry } from '@openpaw/saga';

/**
 * The lines of spec 02's "Example Lifecycle Trace", as `workflow_step_logs` rows: the step name says
 * what happened, `payload.message` is the trace line, further fields carry its data.
 */
export function line(step: string, message: string, extra: JsonObject = {}): StepLogEntry {
  return { step, payload: { message, ...extra } };
}

export function statusLine(status: string, progress: number): StepLogEntry {
  return line('status', `→ Status: ${status} (${progress}%)`, { status, progress });
}

/** "5 questions", "1 flashcard", "3 key points". */
export function itemCount(type: ArtifactType, count: number): string {
  const [one, many] = type === 'quiz' ? ['question', 'questions'] : type === 'flashcards' ? ['flashcard', 'flashcards'] : ['key point', 'key points'];
  return `${count} ${count === 1 ? one : many}`;
}

/** The fingerprint as the trace shows it: its first 14 hex digits. */
export function shortFingerprint(fingerprint: string): string {
  return `${fingerprint.slice(0, 14)}...`;
}
