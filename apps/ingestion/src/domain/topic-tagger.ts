export const SUBJECTS = ['algebra', 'geometry', 'calculus', 'physics', 'chemistry', 'arithmetic', 'statistics', 'other'] as const;
export type Subject = (typeof SUBJECTS)[number];

export interface TopicTags {
  readonly subject: Subject;
  /** The lexicon terms that decided it, strongest first; at most five. */
  readonly keywords: readonly string[];
}

/** Bumped whenever the lexicon changes, so stored tags can be recomputed deliberately. */
export const TOPIC_TAGGER_VERSION = 'lexicon/v1';

interface Cue {
  readonly keyword: string;
  readonly pattern: RegExp;
  /** 3: decisive on its own ("derivative"); 2: strong; 1: suggestive, needs company ("solve"). */
  readonly weight: number;
}

type ScoredSubject = Exclude<Subject, 'other'>;

const cue = (keyword: string, pattern: RegExp, weight: number): Cue => ({ keyword, pattern, weight });

/**
 * Hand-written lexicon over *normalised* text (lower case, ASCII maths). Deterministic and explainable;
 * an LLM tagger can sit behind the same output later.
 */
const LEXICON: Readonly<Record<ScoredSubject, readonly Cue[]>> = {
  calculus: [
    cue('derivative', /\bderivatives?\b|\bdifferentiat\w*|\bd\/dx\b|\bdy\/dx\b|\bf'\(/, 3),
    cue('integral', /\bintegra(l|ls|te|tion)\b|\bantiderivative/, 3),
    cue('limit', /\blimits?\b|\bapproaches\b/, 3),
    cue('tangent line', /\btangent line\b/, 2),
    cue('series', /\b(taylor|maclaurin|power series|converge\w*|diverge\w*)\b/, 3),
    cue('rate of change', /\brates? of change\b|\binstantaneous\b/, 2),
    cue('extrema', /\b(local|global|relative|absolute) (max|min)\w*|\bcritical points?\b|\binflection\b/, 3),
  ],
  algebra: [
    cue('solve for', /\bsolve for [a-z]\b/, 2),
    cue('equation', /\bequations?\b/, 1),
    cue('system of equations', /\bsystem of (linear )?equations\b/, 3),
    cue('quadratic', /\bquadratic\b|\broots?\b|\bdiscriminant\b/, 2),
    cue('polynomial', /\bpolynomials?\b|\bfactor(ise|ize|ing)?\b/, 2),
    cue('inequality', /\binequalit(y|ies)\b|<=|>=/, 2),
    cue('exponents', /\^-?\d|\bexponents?\b|\bpowers?\b/, 1),
    cue('logarithm', /\blog(arithm)?s?\b|\bln\b/, 2),
    cue('expression', /\bexpressions?\b|\bsimplify\b/, 1),
    cue('linear term', /\d[a-z]\b|\b[a-z]=/, 1),
    cue('function', /\bf\(x\)|\bfunctions?\b|\bslope\b|\bintercept\b/, 1),
  ],
  geometry: [
    cue('triangle', /\btriangles?\b|\bhypotenuse\b|\bpythagor\w*/, 3),
    cue('angle', /\bangles?\b|\bdeg\b|\bdegrees\b/, 2),
    cue('circle', /\bcircles?\b|\bradius\b|\bdiameter\b|\bcircumference\b|\bchord\b|\barc\b/, 3),
    cue('polygon', /\b(rectangle|square|polygon|parallelogram|trapezoid|rhombus|hexagon|pentagon)s?\b/, 3),
    cue('area', /\bareas?\b|\bperimeters?\b/, 2),
    cue('solid', /\b(volume|cylinder|cone|sphere|cube|prism|pyramid|surface area)s?\b/, 2),
    cue('lines', /\bparallel\b|\bperpendicular\b|\bcongruent\b|\bsimilar triangles\b|\bbisect\w*/, 2),
  ],
  physics: [
    cue('velocity', /\bvelocit(y|ies)\b|\bspeed\b|\bm\/s\b|\bkm\/h\b/, 2),
    cue('acceleration', /\baccelerat\w*|\bm\/s\^2\b|\bg=9\.8/, 3),
    cue('force', /\bforces?\b|\bnewtons?\b|\b\d+ n\b|\bfriction\b|\btension\b/, 3),
    cue('energy', /\benergy\b|\bwork done\b|\bjoules?\b|\bwatts?\b|\bkinetic\b|\bpotential energy\b/, 3),
    cue('momentum', /\bmomentum\b|\bimpulse\b|\bcollision\b/, 3),
    cue('projectile', /\bprojectile\b|\bthrown\b|\bfalls?\b|\bheight\b|\brises?\b/, 1),
    cue('electricity', /\bvoltage\b|\bcurrent\b|\bresist(ance|or)\b|\bohms?\b|\bcircuit\b/, 3),
    cue('waves', /\bwavelength\b|\bfrequency\b|\bhertz\b|\bhz\b/, 2),
    cue('mass', /\bmass\b|\bkg\b/, 1),
  ],
  chemistry: [
    cue('moles', /\bmol(e|es|ar|arity)?\b|\bg\/mol\b|\bavogadro\b/, 3),
    cue('solution', /\bconcentrations?\b|\bdilut\w*|\bsolutions? of\b|\bml of\b/, 2),
    cue('acid base', /\bacids?\b|\bbases?\b|\bph\b|\btitrat\w*|\bbuffer\b/, 3),
    cue('reaction', /\breactions?\b|\breactants?\b|\bproducts? of the reaction\b|\bbalance the\b|\boxidation\b|\bredox\b/, 2),
    cue('compound', /\bcompounds?\b|\belements?\b|\batoms?\b|\bmolecules?\b|\bnacl\b|\bh2o\b|\bco2\b|\bsodium\b|\bchloride\b/, 2),
  ],
  statistics: [
    cue('mean', /\bmean\b|\baverage of\b/, 2),
    cue('median', /\bmedian\b|\bmode\b|\bquartiles?\b|\bpercentiles?\b/, 3),
    cue('spread', /\bstandard deviation\b|\bvariance\b|\brange of\b|\brange\b/, 2),
    cue('probability', /\bprobabilit(y|ies)\b|\bchance\b|\bodds\b|\bwithout replacement\b|\bdice\b|\bcoins?\b/, 3),
    cue('data', /\bdata( set)?\b|\bsamples?\b|\bdistribution\b|\bsurvey\b|\bfrequency table\b/, 2),
  ],
  arithmetic: [
    cue('fractions', /\bfractions?\b|\blowest terms\b|\b\d+\/\d+\b/, 2),
    cue('percent', /%|\bpercent\w*\b|\bdiscount\w*\b|\btax\w*\b/, 2),
    cue('operations', /\badd\b|\bsubtract\b|\bmultipl\w*|\bdivide\w*|\bsum\b|\bdifference\b|\bproduct\b|\bquotient\b|\bremainder\b/, 1),
    cue('money', /\$\d|\bcosts?\b|\bprice\b|\bchange\b/, 1),
    cue('how many', /\bhow (many|much)\b/, 1),
    cue('sharing', /\beach of\b|\b(are|is) left\b|\bin total\b|\baltogether\b|\bshared? equally\b/, 1),
    cue('decimals', /\bdecimals?\b|\bround(ed)? to\b/, 1),
  ],
};

/** Fixed priority for ties: the more specific subject wins over the more general one. */
const PRIORITY: readonly ScoredSubject[] = ['calculus', 'chemistry', 'physics', 'statistics', 'geometry', 'algebra', 'arithmetic'];

/** Below this score no subject is claimed. */
const MIN_SCORE = 2;

/** Tags normalised problem text with a subject and the keywords that decided it. */
export function tagTopics(normalisedText: string): TopicTags {
  let best: { subject: ScoredSubject; score: number; cues: Cue[] } | undefined;
  for (const subject of PRIORITY) {
    const matched = LEXICON[subject].filter((c) => c.pattern.test(normalisedText));
    const score = matched.reduce((sum, c) => sum + c.weight, 0);
    if (best === undefined || score > best.score) best = { subject, score, cues: matched };
  }
  if (best === undefined || best.score < MIN_SCORE) return { subject: 'other', keywords: [] };
  const keywords = [...best.cues].sort((a, b) => b.weight - a.weight).map((c) => c.keyword).slice(0, 5);
  return { subject: best.subject, keywords };
}
