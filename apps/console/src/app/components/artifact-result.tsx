import type { ArtifactJob } from '../api/resources.js';

/** The shapes spec 02 gives each artifact's `result` (the API types it as an open object). */
interface QuizResult {
  questions: { question: string; options: string[]; correct_answer: string; explanation: string }[];
}
interface FlashcardsResult {
  flashcards: { front: string; back: string }[];
}
interface SummaryResult {
  title: string;
  summary: string;
  key_points: { point: string }[];
}

/** A completed artifact, rendered for studying: a quiz with answers behind a disclosure, flashcards, or a summary. */
export function ArtifactResultView({ kind, result }: { kind: ArtifactJob['artifact_type']; result: NonNullable<ArtifactJob['result']> }) {
  switch (kind) {
    case 'quiz': {
      const quiz = result as unknown as QuizResult;
      return (
        <section aria-labelledby="artifact-title" class="artifact">
          <h2 id="artifact-title">Quiz</h2>
          <ol>
            {quiz.questions.map((question) => (
              <li key={question.question} class="quiz-question">
                <p>{question.question}</p>
                <ul>
                  {question.options.map((option) => (
                    <li key={option}>{option}</li>
                  ))}
                </ul>
                <details>
                  <summary>Answer</summary>
                  <p>
                    <strong>{question.correct_answer}</strong>: {question.explanation}
                  </p>
                </details>
              </li>
            ))}
          </ol>
        </section>
      );
    }
    case 'flashcards': {
      const cards = (result as unknown as FlashcardsResult).flashcards;
      return (
        <section aria-labelledby="artifact-title" class="artifact">
          <h2 id="artifact-title">Flashcards</h2>
          <ul class="flashcards">
            {cards.map((card) => (
              <li key={card.front}>
                <details>
                  <summary>{card.front}</summary>
                  <p>{card.back}</p>
                </details>
              </li>
            ))}
          </ul>
        </section>
      );
    }
    case 'summary': {
      const summary = result as unknown as SummaryResult;
      return (
        <section aria-labelledby="artifact-title" class="artifact">
          <h2 id="artifact-title">{summary.title}</h2>
          <p>{summary.summary}</p>
          <ul>
            {summary.key_points.map((point) => (
              <li key={point.point}>{point.point}</li>
            ))}
          </ul>
        </section>
      );
    }
  }
}
