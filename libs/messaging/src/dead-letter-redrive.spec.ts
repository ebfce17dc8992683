import { deadLetterMatches, subjectMatches } from './dead-letter-redrive.js';

describe('which dead letters a redrive filter takes', () => {
  it('matches subjects with NATS wildcards: `*` one token, `>` one or more trailing tokens', () => {
    expect(subjectMatches('openpaw.cmd.solver.Solve.v1', 'openpaw.cmd.solver.Solve.v1')).toBe(true);
    expect(subjectMatches('openpaw.cmd.*.Solve.v1', 'openpaw.cmd.solver.Solve.v1')).toBe(true);
    expect(subjectMatches('openpaw.cmd.>', 'openpaw.cmd.solver.Solve.v1')).toBe(true);
    expect(subjectMatches('openpaw.cmd.solver.>', 'openpaw.cmd.solver')).toBe(false);
    expect(subjectMatches('openpaw.cmd.*', 'openpaw.cmd.solver.Solve.v1')).toBe(false);
    expect(subjectMatches('openpaw.cmd.solver.Solve.v1', 'openpaw.cmd.solver.Solve.v2')).toBe(false);
    expect(subjectMatches('openpaw.cmd.solver.Solve.v1.extra', 'openpaw.cmd.solver.Solve.v1')).toBe(false);
  });

  it('needs every given filter to match; the reason case-insensitively as a substring', () => {
    const subject = 'openpaw.cmd.solver.Solve.v1';
    expect(deadLetterMatches({ reason: 'QUOTA' }, subject, 'downstream refused: quota exceeded')).toBe(true);
    expect(deadLetterMatches({ subject: 'openpaw.cmd.solver.>', reason: 'quota' }, subject, 'timeout')).toBe(false);
    expect(deadLetterMatches({ subject: 'openpaw.cmd.solver.>' }, undefined, 'quota')).toBe(false);
    expect(deadLetterMatches({ reason: 'quota' }, subject, undefined)).toBe(false);
    expect(deadLetterMatches({}, subject, undefined)).toBe(true);
  });
});
