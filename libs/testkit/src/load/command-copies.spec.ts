import { accountForCopies } from './command-copies.js';

const WINDOW = 120_000;
const copy = (msgId: string, storedAt: number) => ({ msgId, storedAt, duplicateWindowMs: WINDOW });

describe('accountForCopies: what explains a command stored more than once', () => {
  it("takes a copy under a fresh msgId as the coordinator's when it logged that re-send", () => {
    expect(accountForCopies([copy('c1', 0), copy('c1:lost:2', 30_000)], [{ step: 'command_lost_resent', resend: 1 }, { step: 'command_lost_resent', resend: 2 }])).toEqual({ keptTwiceByServer: 0, unexplained: 0 });
    expect(accountForCopies([copy('c1', 0), copy('c1:resend:1', 30_000)], [{ step: 'command_resent', resend: 1 }])).toEqual({ keptTwiceByServer: 0, unexplained: 0 });
  });

  it('counts a copy under a fresh msgId that no logged re-send made (a publisher inventing ids) as unexplained', () => {
    expect(accountForCopies([copy('c1', 0), copy('c1:again', 1_000)], [])).toEqual({ keptTwiceByServer: 0, unexplained: 1 });
    // The first lost re-send reuses the command's msgId, so it accounts for no fresh one.
    expect(accountForCopies([copy('c1', 0), copy('other', 1_000)], [{ step: 'command_lost_resent', resend: 1 }])).toEqual({ keptTwiceByServer: 0, unexplained: 1 });
  });

  it("takes a msgId stored twice inside the duplicate window as the server's, and past it as a late re-publish", () => {
    expect(accountForCopies([copy('c1', 0), copy('c1', WINDOW)], [])).toEqual({ keptTwiceByServer: 1, unexplained: 0 });
    expect(accountForCopies([copy('c1', 0), copy('c1', WINDOW + 1)], [])).toEqual({ keptTwiceByServer: 0, unexplained: 1 });
  });

  it('accounts for each copy once when re-sends and a server copy meet', () => {
    const copies = [copy('c1', 0), copy('c1', 5_000), copy('c1:lost:2', 30_000), copy('c1:lost:3', 45_000)];
    expect(accountForCopies(copies, [{ step: 'command_lost_resent', resend: 2 }])).toEqual({ keptTwiceByServer: 1, unexplained: 1 });
  });
});
