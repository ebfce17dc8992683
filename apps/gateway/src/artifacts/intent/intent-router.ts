import type { ArtifactOptions, ArtifactType } from '@openpaw/contracts';

/** What a chat message asks for: an artifact job (with the options it states) or a chat answer. */
export type IntentDecision =
  | { readonly mode: 'artifact'; readonly artifactType: ArtifactType; readonly statedOptions: ArtifactOptions; readonly reason: string }
  | { readonly mode: 'chat'; readonly reason: string };

const TYPES: readonly { readonly type: ArtifactType; readonly pattern: RegExp }[] = [
  { type: 'flashcards', pattern: /\bflash[\s-]?cards?\b/ },
  { type: 'quiz', pattern: /\bquiz(?:zes)?\b|\bmultiple[\s-]choice\b|\bmcqs?\b|\bpractice questions\b|\btest me\b/ },
  { type: 'summary', pattern: /\bsummar(?:y|ies|ise|ize|ised|ized|ising|izing)\b|\btl;?dr\b|\bkey (?:points|takeaways)\b|\boverview\b/ },
];

/** Words that make a message a request to produce something rather than a question about it. */
const REQUEST =
  /\b(?:create|make|generate|build|write|prepare|produce|draft|design|give me|i (?:want|need|would like)|can you|could you|would you|please|turn\b.*\binto|convert\b.*\binto)\b/;
/** Messages that are themselves the request: "summarize chapter 2", "quiz me on cells", "flashcards for ...". */
const IMPERATIVE = /^(?:please\s+)?(?:summar(?:ise|ize)|quiz me|test me|tl;?dr|(?:a |an |some )?(?:quiz|flash[\s-]?cards?|summary)\b)/;

function number(match: RegExpExecArray | null): number | undefined {
  const n = match?.[1] === undefined ? undefined : Number(match[1]);
  return n !== undefined && Number.isInteger(n) && n > 0 ? n : undefined;
}

function statedOptions(type: ArtifactType, text: string): ArtifactOptions {
  switch (type) {
    case 'quiz': {
      const count = number(/\b(\d{1,2})\s+(?:[a-z-]+\s+){0,2}(?:questions?|mcqs?)\b/.exec(text));
      const difficulty = /\b(easy|medium|hard)\b/.exec(text)?.[1] as ArtifactOptions['difficulty'];
      return { ...(count === undefined ? {} : { num_questions: count }), ...(difficulty === undefined ? {} : { difficulty }) };
    }
    case 'flashcards': {
      const count = number(/\b(\d{1,2})\s+(?:[a-z-]+\s+){0,2}(?:flash[\s-]?cards?|cards)\b/.exec(text));
      return count === undefined ? {} : { num_cards: count };
    }
    case 'summary': {
      const count = number(/\b(\d{1,2})\s+(?:[a-z-]+\s+){0,2}(?:points|bullets?|takeaways)\b/.exec(text));
      return count === undefined ? {} : { num_points: count };
    }
  }
}

/**
 * The rules-based intent router (the default; spec 02's `classify`): a message is an artifact request
 * when it names an artifact type (quiz, flashcards, summary; the first named wins) and asks for one
 * (a request verb, or the message is itself the request: "summarize ...", "quiz me on ..."). Counts
 * and a difficulty stated in the message become options. Everything else is chat.
 */
export function routeIntent(message: string): IntentDecision {
  const text = message.toLowerCase().replace(/\s+/g, ' ').trim();
  const named = TYPES.map(({ type, pattern }) => ({ type, at: pattern.exec(text)?.index ?? -1 }))
    .filter((t) => t.at >= 0)
    .sort((a, b) => a.at - b.at)[0];
  if (named === undefined) return { mode: 'chat', reason: 'no artifact type named' };
  const asks = REQUEST.exec(text) ?? IMPERATIVE.exec(text);
  if (asks === null) return { mode: 'chat', reason: `mentions ${named.type} without asking for one` };
  return {
    mode: 'artifact',
    artifactType: named.type,
    statedOptions: statedOptions(named.type, text),
    reason: `rules: "${asks[0].trim()}" + ${named.type}`,
  };
}
