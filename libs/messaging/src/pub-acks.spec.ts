import { pubAckOf } from './pub-acks.js';

describe('pubAckOf: the PubAck JSON a JetStream publish is answered with', () => {
  it('reads the stream, sequence, duplicate flag and domain', () => {
    expect(pubAckOf('{"stream":"S","seq":7}')).toEqual({ stream: 'S', seq: 7, duplicate: false });
    expect(pubAckOf('{"stream":"S","seq":7,"duplicate":true,"domain":"hub"}')).toEqual({ stream: 'S', seq: 7, duplicate: true, domain: 'hub' });
  });

  it("names the server's refusal by its codes and description", () => {
    expect(pubAckOf('{"error":{"code":503,"err_code":10077,"description":"maximum messages exceeded"}}')).toEqual({ refused: 'refused (503/10077): maximum messages exceeded', unavailable: true });
    expect(pubAckOf('{"error":{"code":400,"err_code":10060,"description":"expected stream does not match"}}')).toEqual({ refused: 'refused (400/10060): expected stream does not match', unavailable: false });
    expect(pubAckOf('{"error":{"description":{"nested":true}}}')).toEqual({ refused: 'refused (no code): no description', unavailable: false });
  });

  it('refuses what is not a PubAck instead of resolving a publish that may not be stored', () => {
    const refused = (text: string): string => (pubAckOf(text) as { refused: string }).refused;
    expect(refused('not json')).toMatch(/^the PubAck is not JSON/);
    expect(refused('42')).toMatch(/^the PubAck is not an object/);
    expect(refused('{"stream":"","seq":1}')).toMatch(/^invalid PubAck/);
    expect(refused('{"stream":"S"}')).toMatch(/^invalid PubAck/);
  });
});
