import { Rational } from './rational.js';

describe('Rational', () => {
  it('keeps lowest terms with a positive denominator', () => {
    expect(Rational.of(6, -8).toString()).toBe('-3/4');
    expect(Rational.of(1, 3).add(Rational.of(1, 6)).toString()).toBe('1/2');
  });

  it('reads decimals exactly', () => {
    expect(Rational.parse('0.1')!.add(Rational.parse('0.2')!).equals(Rational.parse('0.3')!)).toBe(true);
    expect(Rational.parse('2.5e2')!.toString()).toBe('250');
    expect(Rational.parse('abc')).toBeUndefined();
  });

  it('prints a terminating decimal only when there is one', () => {
    expect(Rational.of(3, 8).toTerminatingDecimal()).toBe('0.375');
    expect(Rational.of(-1, 4).toTerminatingDecimal()).toBe('-0.25');
    expect(Rational.of(1, 3).toTerminatingDecimal()).toBeUndefined();
  });

  it('refuses division by zero', () => {
    expect(() => Rational.ONE.div(Rational.ZERO)).toThrow(RangeError);
  });
});
