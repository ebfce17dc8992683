import { statementNamer } from './prepared-sql.js';

describe('statementNamer', () => {
  it('names each text once per prefix, the same name on every use', () => {
    const nameOf = statementNamer('spec');
    expect([nameOf('select 1'), nameOf('select 2'), nameOf('select 1')]).toEqual(['spec_1', 'spec_2', 'spec_1']);
    expect(statementNamer('other')('select 1')).toBe('other_1');
  });

  it('names a text anew each time its uses grow fourfold (from 256), so each connection plans it again for the tables as they are', () => {
    const nameOf = statementNamer('grow');
    const names = Array.from({ length: 5000 }, () => nameOf('select * from t where id = $1'));
    const firstUseOf = new Map<string, number>();
    names.forEach((name, i) => firstUseOf.set(name, firstUseOf.get(name) ?? i + 1));
    expect([...firstUseOf]).toEqual([
      ['grow_1', 1],
      ['grow_1_1', 257],
      ['grow_1_2', 1025],
      ['grow_1_3', 4097],
    ]);
    // Another text keeps its own count.
    expect(nameOf('select 2')).toBe('grow_2');
  });

  it('stops renaming after ~16 million uses (autovacuum statistics replan it from then on)', () => {
    const nameOf = statementNamer('cap');
    let last = '';
    for (let i = 0; i < 256 * 4 ** 9 + 10; i += 1) last = nameOf('select 1');
    expect(last).toBe('cap_1_9');
  });
});
