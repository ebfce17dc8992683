import { tagTopics } from './topic-tagger.js';
import { normaliseText } from './text-normalisation.js';

const tag = (text: string): ReturnType<typeof tagTopics> => tagTopics(normaliseText(text));

describe('tagTopics', () => {
  it.each([
    ['Solve for x: 3x + 7 = 22', 'algebra'],
    ['Find all real roots of the equation x² − 5x + 6 = 0', 'algebra'],
    ['Solve the system of equations 2x + y = 7 and x − y = 2', 'algebra'],
    ['Find the derivative of f(x) = 3x³ − 2x', 'calculus'],
    ['Evaluate the definite integral of 2x from 0 to 3', 'calculus'],
    ['Compute the limit as x approaches 2 of (x² − 4)/(x − 2)', 'calculus'],
    ['The angles of a triangle measure 40° and 60°. Find the third angle.', 'geometry'],
    ['A circle has a radius of 7 m. Find its circumference.', 'geometry'],
    ['A rectangle has a length of 8 cm and a width of 3 cm. Find its area.', 'geometry'],
    ['A force of 20 N acts on a mass of 4 kg. Find the acceleration.', 'physics'],
    ['A ball is thrown up at 12 m/s. Taking g = 9.8 m/s², find the maximum height.', 'physics'],
    ['How many moles of NaCl are in 117 g of sodium chloride?', 'chemistry'],
    ['A chemist dilutes 50 mL of a 2 M acid solution to 500 mL. Find the concentration.', 'chemistry'],
    ['Compute the mean and the median of the data set 3, 5, 9, 11', 'statistics'],
    ['A bag holds 3 red and 5 blue marbles. What is the probability both are red?', 'statistics'],
    ['Simplify (3/4) × (2/9) and write the answer in lowest terms', 'arithmetic'],
    ['Ana has 24 apples and gives 3 to each of 5 friends. How many are left?', 'arithmetic'],
    ['A jacket costs $80 and is discounted by 25%. What is the price?', 'arithmetic'],
    ['Write a short poem about the sea', 'other'],
  ])('%s → %s', (text, subject) => {
    expect(tag(text).subject).toBe(subject);
  });

  it('names the keywords that decided, strongest first, at most five', () => {
    const tags = tag('Find the derivative and the integral of f(x) = x², then its limit at 0; is the series convergent?');
    expect(tags.subject).toBe('calculus');
    expect(tags.keywords.slice(0, 3)).toEqual(['derivative', 'integral', 'limit']);
    expect(tags.keywords.length).toBeLessThanOrEqual(5);
    expect(tag('hello').keywords).toEqual([]);
  });

  it('is deterministic', () => {
    const text = normaliseText('A ball is thrown with velocity 10 m/s at an angle of 30°');
    expect(tagTopics(text)).toEqual(tagTopics(text));
  });
});
