import { mainPathProgress, stateLabel, WORKFLOWS } from './workflows.js';

const mainPath = WORKFLOWS[0]?.mainPath ?? [];

describe("a run's progress on spec 01's main path", () => {
  it('given a run generating a solution, then earlier states are done and later ones upcoming', () => {
    const progress = mainPathProgress(mainPath, ['INITIATED', 'INGESTING', 'RETRIEVING', 'GENERATING_SOLUTION'], 'GENERATING_SOLUTION');
    expect(progress.map((step) => step.status)).toEqual(['done', 'done', 'done', 'current', 'upcoming', 'upcoming', 'upcoming']);
  });

  it('given a retrieval hit (RETRIEVING → SUCCEEDED), then generation, registering and indexing are skipped', () => {
    const progress = mainPathProgress(mainPath, ['INITIATED', 'INGESTING', 'RETRIEVING', 'SUCCEEDED'], 'SUCCEEDED');
    expect(progress.map((step) => step.status)).toEqual(['done', 'done', 'done', 'skipped', 'skipped', 'skipped', 'current']);
  });

  it('given a first event that already names INGESTING, then INITIATED is done, not skipped', () => {
    const progress = mainPathProgress(mainPath, ['INGESTING'], 'INGESTING');
    expect(progress.slice(0, 3).map((step) => step.status)).toEqual(['done', 'current', 'upcoming']);
  });

  it('names states for people', () => {
    expect(stateLabel('GENERATING_SOLUTION')).toBe('Generating solution');
  });
});
