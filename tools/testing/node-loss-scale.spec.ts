import { nodeLossScale } from './node-loss-scale.js';

describe('nodeLossScale (OPENPAW_NODE_LOSS_SCALE)', () => {
  it('is 1 unless set, and the whole number set', () => {
    expect(nodeLossScale({})).toBe(1);
    expect(nodeLossScale({ OPENPAW_NODE_LOSS_SCALE: '' })).toBe(1);
    expect(nodeLossScale({ OPENPAW_NODE_LOSS_SCALE: '5' })).toBe(5);
  });

  it('refuses anything else, naming the setting', () => {
    for (const raw of ['0', '2.5', 'five', '21', '-1']) expect(() => nodeLossScale({ OPENPAW_NODE_LOSS_SCALE: raw })).toThrow(`OPENPAW_NODE_LOSS_SCALE: "${raw}"`);
  });
});
