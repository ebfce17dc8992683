import { pubAckOf } from './pub-acks.js';

describe('pubAckOf: the PubAck JSON a JetStream publish is answered with', () => {
  it('reads the stream, sequence, duplicate flag and domain', () => {
    expect(pubAckOf('{"stream":"S","seq":7}')).toEqual({ stream: 'S', seq: 7, duplicate: false });
    expect(pubAckOf('{"stream":"S","seq":7,"duplicate":true,"domain":"hub"}')).toEqual({ stream: 'S', seq: 7, duplicate: true, domain: 'hub' });
  });

  it("names the server's refusal by its codes and description", () => {
    expect(pubAckOf('{"error":{"code":503,"err_code":10077,"description":"maximum messages exceeded"}}')).toBe('refused (503/10077): maximum messages exceeded');
    expect(pubAckOf('{"error":{"description":{"nested":true}}}')).toBe('refused (no code): no description');
  });

  it('refuses what is not a PubAck instead of resolving a publish that may not be stored', () => {
    expect(pubAckOf('not json')).toMatch(/^the PubAck is not JSON/);
    expect(pubAckOf('42')).toMatch(/^the PubAck is not an object/);
    expect(pubAckOf('{"stream":"","seq":1}')).toMatch(/^invalid PubAck/);
    expect(pubAckOf('{"stream":"S"}')).toMatch(/^invalid PubAck/);
  });
});
