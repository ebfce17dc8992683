/** Why content is tagged sensitive: the rule families of spec 01's sensitivity tag. */
export type SensitivityReason = 'personal_data' | 'exam_paper' | 'explicit_content';

export interface ContentSensitivityTag {
  readonly sensitivity: 'standard' | 'sensitive';
  /** The rule families that matched, in a fixed order; empty when standard. Never the matched text. */
  readonly reasons: readonly SensitivityReason[];
}

/**
 * The rules, over the submitted or OCR'd text (before normalisation, which folds the punctuation an
 * e-mail address or a phone number is recognised by). They are deliberately broad: a false
 * "sensitive" costs a stricter policy (retrieval at 0.95, no video), a missed one serves someone
 * else's solution for a student's exam paper or personal data.
 */
const RULES: Readonly<Record<SensitivityReason, readonly RegExp[]>> = {
  personal_data: [
    /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/, // an e-mail address
    /(?:\+\d{1,3}[\s.-]?)?\(?\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}\b/, // a phone number, grouped
    /\b\d{3}-\d{2}-\d{4}\b/, // a US social security number
    /\b(?:date of birth|d\.o\.b\.|home address|national insurance number|social security number|passport number)\b/i,
    /\b(?:student|pupil|candidate)(?:'s)?\s+(?:full\s+)?(?:name|id|number)\s*[:#]/i,
  ],
  exam_paper: [
    /\bcandidate number\b/i,
    /\bcent(?:re|er) number\b/i,
    /\bdo not (?:open|turn over) this (?:paper|booklet)\b/i,
    /\btime allowed\s*:?\s*\d/i,
    /\bfor examiner['’]?s use\b/i,
    /\b(?:question paper|answer booklet|mark scheme)\b/i,
    /\btotal (?:mark|marks) for this paper\b/i,
  ],
  explicit_content: [/\b(?:porn\w*|nudes?|naked|sexual|sex|xxx|rape|self-harm|suicide)\b/i],
};

/** Tags content sensitive when any rule matches. Pure. */
export function tagContentSensitivity(text: string): ContentSensitivityTag {
  const reasons = (Object.keys(RULES) as SensitivityReason[]).filter((reason) => RULES[reason].some((rule) => rule.test(text)));
  return { sensitivity: reasons.length > 0 ? 'sensitive' : 'standard', reasons };
}
