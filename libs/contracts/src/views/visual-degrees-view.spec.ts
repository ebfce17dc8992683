import { z } from 'zod';
import { VISUAL_DEGREES_NO_PATH_REASONS } from '../messages/visual-degrees.js';
import { visualDegreesView } from './visual-degrees-view.js';

function stoppedView(reason: string): Record<string, unknown> {
  return {
    status: 'failed',
    state: 'S7',
    from: 'A',
    to: 'B',
    hop_limit: 6,
    hop_depth: 0,
    strategy: 'one_sided',
    path: ['A'],
    budgets: {},
    used: {},
    duration_ms: 1,
    events: [],
    failure: { reason, detail: 'stopped' },
  };
}

describe('visualDegreesView failure.reason', () => {
  it('takes every documented no-path reason, person_taken_down among them', () => {
    expect(VISUAL_DEGREES_NO_PATH_REASONS).toContain('person_taken_down');
    for (const reason of VISUAL_DEGREES_NO_PATH_REASONS) {
      const parsed = visualDegreesView.safeParse(stoppedView(reason));
      expect({ reason, success: parsed.success, issues: parsed.error?.issues }).toEqual({ reason, success: true, issues: undefined });
    }
  });

  it('refuses a reason the API does not document (a client switches on the list)', () => {
    const parsed = visualDegreesView.safeParse(stoppedView('taken_down_somehow'));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['failure', 'reason']);
  });

  it('lists the reasons in the JSON schema the OpenAPI document is built from', () => {
    const schema = z.toJSONSchema(visualDegreesView.shape.failure.unwrap().shape.reason);
    expect(schema).toMatchObject({ enum: expect.arrayContaining(['person_taken_down', 'not_a_public_figure', 'unknown_person', 'hop_limit_reached']) });
  });
});
