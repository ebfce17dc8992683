import { tagContentSensitivity } from './content-sensitivity.js';

describe('tagContentSensitivity', () => {
  it.each([
    ['2x + 3 = 7', 'a maths problem'],
    ['A train travels 120 km in 2 hours. What is its average speed in km/h?', 'a word problem with numbers'],
    ['Find the area of a circle of radius 5 cm. [3 marks]', 'a worksheet mark allocation'],
    ['Solve 555 - 123 + 4567 = x', 'numbers that are not a phone number'],
  ])('leaves %s standard (%s)', (text) => {
    expect(tagContentSensitivity(text)).toEqual({ sensitivity: 'standard', reasons: [] });
  });

  it.each([
    ['Student name: Jane Doe. Solve 2x + 3 = 7', 'personal_data'],
    ['Send your answers to jane.doe@example.com: 2x + 3 = 7', 'personal_data'],
    ['Call me on +44 20 7946 0958 or (555) 123-4567 about 2x = 4', 'personal_data'],
    ['Date of birth 01/02/2010. Solve x + 1 = 3', 'personal_data'],
    ['Candidate number 4821. Paper 2. Solve 3x - 4 = 11', 'exam_paper'],
    ['DO NOT OPEN THIS PAPER until told to do so. Time allowed: 1 hour 30 minutes', 'exam_paper'],
    ['For examiner’s use only', 'exam_paper'],
    ["For examiner's use only. Question 1: solve x^2 = 9", 'exam_paper'],
    ['Explicit nude pictures', 'explicit_content'],
  ])('tags %s sensitive for %s', (text, reason) => {
    const tag = tagContentSensitivity(text);
    expect(tag.sensitivity).toBe('sensitive');
    expect(tag.reasons).toContain(reason);
  });

  it('names every rule family that matched, never the matched text', () => {
    expect(tagContentSensitivity('Candidate number 12. Email: a@b.org. Sexual health unit, question 3')).toEqual({
      sensitivity: 'sensitive',
      reasons: ['personal_data', 'exam_paper', 'explicit_content'],
    });
  });
});
