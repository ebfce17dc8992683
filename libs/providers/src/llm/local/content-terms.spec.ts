import { contentTerms } from './content-terms.js';
import { TextFacts } from './text-facts.js';

/**
 * Hand-labelled paragraphs (issue 26): the content terms a teacher would ask about. Every blank the
 * local quiz makes must be one of them, and none a function word or the noun of an idiom.
 */
const GOLD: readonly { readonly text: string; readonly terms: readonly string[] }[] = [
  {
    text:
      'Photosynthesis converts light energy into chemical energy. It takes place in the chloroplasts of green plant cells. ' +
      'The light-dependent reactions happen in the thylakoid membranes, where chlorophyll absorbs light and water is split, releasing oxygen. ' +
      'These reactions produce ATP and NADPH. The Calvin cycle takes place in the stroma and uses ATP and NADPH to fix carbon dioxide into glucose.',
    terms: ['photosynthesis', 'light energy', 'chemical energy', 'chloroplasts', 'green plant cells', 'plant cells', 'dependent reactions', 'light-dependent reactions', 'reactions', 'thylakoid', 'thylakoid membranes', 'chlorophyll', 'water', 'oxygen', 'atp', 'nadph', 'calvin', 'calvin cycle', 'stroma', 'carbon dioxide', 'glucose', 'light'],
  },
  {
    text:
      'Mitochondria produce most of the ATP in eukaryotic cells. The Krebs cycle runs in the mitochondrial matrix. ' +
      'The electron transport chain sits in the inner membrane and pumps protons across it. ' +
      'Oxidative phosphorylation yields about 30 molecules of ATP per molecule of glucose.',
    terms: ['mitochondria', 'atp', 'eukaryotic cells', 'krebs', 'krebs cycle', 'mitochondrial matrix', 'electron transport chain', 'inner membrane', 'protons', 'oxidative phosphorylation', '30 molecules', 'molecules', 'molecule', 'glucose'],
  },
  {
    text:
      'Marie Curie discovered polonium and radium in Paris. She won the Nobel Prize in Physics in 1903 with Pierre Curie. ' +
      'Radium emits alpha particles and gamma rays, and its half-life is about 1600 years.',
    terms: ['marie curie', 'polonium', 'radium', 'paris', 'nobel prize', 'physics', 'pierre curie', 'alpha particles', 'gamma rays', 'half-life', 'life', '1600 years', 'nobel prize in physics'],
  },
];

const FUNCTION_WORDS = new Set(['it', 'takes', 'take', 'place', 'the', 'and', 'in', 'of', 'is', 'are', 'its', 'she', 'these', 'about', 'uses', 'happen', 'runs', 'sits', 'most']);

describe('contentTerms (part-of-speech noun phrases, names and quantities)', () => {
  it.each(GOLD.map((paragraph, index) => [index, paragraph] as const))('blanks only gold content terms in paragraph %i, never a function word', (_index, paragraph) => {
    const facts = new TextFacts(paragraph.text);
    const used = new Set<string>();
    for (let index = 0; index < facts.sentences.length; index += 1) {
      const fact = facts.fact(index, used)!;
      used.add(fact.answer.toLowerCase());
      expect({ sentence: fact.sentence, blank: fact.answer.toLowerCase(), gold: paragraph.terms.includes(fact.answer.toLowerCase()) }).toEqual({ sentence: fact.sentence, blank: fact.answer.toLowerCase(), gold: true });
    }
    const terms = contentTerms(paragraph.text).map((term) => term.text.toLowerCase());
    expect(terms.length).toBeGreaterThanOrEqual(5);
    expect(terms.filter((term) => FUNCTION_WORDS.has(term))).toEqual([]);
    // Most terms found are gold ones (the tagger may join a verb it read as a noun to a phrase).
    expect(terms.filter((term) => paragraph.terms.includes(term)).length).toBeGreaterThanOrEqual(terms.length * 0.8);
  });

  it('ranks specific terms above everyday ones, and tells names and quantities from concepts', () => {
    const terms = contentTerms(GOLD[2]!.text);
    const rank = (text: string): number => terms.findIndex((term) => term.text.toLowerCase() === text);
    expect(rank('polonium')).toBeLessThan(rank('physics'));
    expect(terms.find((term) => term.text.toLowerCase() === '1600 years')?.kind).toBe('quantity');
    expect(terms.find((term) => term.text.toLowerCase() === 'marie curie')?.kind).toBe('name');
  });
});

describe('TextFacts cloze questions on the photosynthesis note (issue 26: it blanked "takes" and "place")', () => {
  it('blanks a gold content term in every sentence, with distractors that are terms of the source', () => {
    const facts = new TextFacts(GOLD[0]!.text);
    const used = new Set<string>();
    for (let index = 0; index < facts.sentences.length; index += 1) {
      const fact = facts.fact(index, used)!;
      used.add(fact.answer.toLowerCase());
      expect(GOLD[0]!.terms).toContain(fact.answer.toLowerCase());
      expect(fact.cloze).toContain('_____');
      const { options, correctIndex } = facts.options(fact, 4);
      expect(options[correctIndex]).toBe(fact.answer);
      for (const option of options) expect(facts.terms).toContain(option);
    }
    expect([...used].filter((blank) => FUNCTION_WORDS.has(blank))).toEqual([]);
  });
});

describe('TextFacts distractors (issue 26: "Distractors are terms of the same kind from the sources")', () => {
  it.each(GOLD.map((paragraph, index) => [index, paragraph] as const))('are names for a name, quantities for a quantity, concepts for a concept, as far as paragraph %i has them', (_index, paragraph) => {
    const facts = new TextFacts(paragraph.text);
    const kinds = new Map(contentTerms(facts.sentences.join('\n')).map((term) => [term.text.toLowerCase(), term.kind]));
    let checked = 0;
    for (let index = 0; index < facts.sentences.length; index += 1) {
      const fact = facts.fact(index)!;
      const kind = kinds.get(fact.answer.toLowerCase());
      const { options, correctIndex } = facts.options(fact, 4);
      const distractors = options.filter((_, position) => position !== correctIndex);
      // The source's other terms of the answer's kind that the sentence does not give away.
      const sameKind = [...kinds].filter(([term, termKind]) => termKind === kind && term !== fact.answer.toLowerCase() && !fact.sentence.toLowerCase().includes(term)).map(([term]) => term);
      const expectedSameKind = Math.min(distractors.length, sameKind.length);
      expect({ answer: fact.answer, kind, sameKindDistractors: distractors.filter((d) => kinds.get(d.toLowerCase()) === kind).length }).toEqual({ answer: fact.answer, kind, sameKindDistractors: expectedSameKind });
      checked += expectedSameKind;
    }
    expect(checked).toBeGreaterThan(0);
  });
});
