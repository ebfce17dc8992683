import { detectIntent, intentWording } from './intent.js';

describe('intent', () => {
  it.each([
    ['find the derivative of x^2', 'differentiate'],
    ["if f(x) = x^2, find f'(x)", 'differentiate'],
    ['integrate x dx', 'integrate'],
    ['find the limit of 1/x as x approaches 2', 'limit'],
    ['factorise x^2 - 1', 'factor'],
    ['multiply out (x + 1)(x - 1)', 'expand'],
    ['how many minutes are in 2 hours?', 'convert'],
    ['simplify (x^2 - 1)/(x - 1)', 'simplify'],
    ['solve 2x = 4', 'solve'],
    ['what is 2 + 2?', 'evaluate'],
  ])('%j → %s', (text, intent) => {
    expect(detectIntent(text)).toBe(intent);
  });

  it('has none for prose', () => {
    expect(detectIntent('tell me about photosynthesis')).toBeUndefined();
  });

  it.each([
    ['find the roots of x^2 - 1 = 0', 'solve', ['find', 'the', 'of']],
    ['multiply out (x + 1)^2', 'expand', []],
    ['write √8 in simplest surd form', 'simplify', ['write', 'in']],
    // A word the rule matches as a wildcard is the question's: "cm" stays.
    ['how many cm are in 2.5 m?', 'convert', ['cm']],
  ])('%j reads %s, leaving the words %j', (text, intent, words) => {
    const read = intentWording(text);
    expect(read.intent).toBe(intent);
    expect(read.rest.match(/[a-z]{2,}/g) ?? []).toEqual(words);
  });
});
