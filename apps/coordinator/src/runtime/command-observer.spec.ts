import { COORDINATOR_COMMANDS_CONSUMER, CRITICAL_LANE, laneDurableOf, SearchSolutions, StartRun } from '@openpaw/contracts';
import { backlogDurableOf } from './command-observer.js';

describe('backlogDurableOf', () => {
  it("reads a command to the coordinator from the coordinator's own durable (it runs no lanes)", () => {
    expect(backlogDurableOf(StartRun.subject)).toBe(COORDINATOR_COMMANDS_CONSUMER);
  });

  it("reads a service's command from its lane, an unknown one from the service's critical lane, and no durable for an event", () => {
    expect(backlogDurableOf(SearchSolutions.subject)).toBe(laneDurableOf('retrieval', CRITICAL_LANE));
    expect(backlogDurableOf('openpaw.cmd.retrieval.SomethingNew.v1')).toBe(laneDurableOf('retrieval', CRITICAL_LANE));
    expect(backlogDurableOf('openpaw.evt.retrieval.RetrievalHit.v2')).toBeUndefined();
  });
});
