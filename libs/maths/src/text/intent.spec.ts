import { detectIntent } from './intent.js';

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
});
