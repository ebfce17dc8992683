import { freeText } from '@openpaw/contracts';
import { z } from 'zod';
import { runIdPrefix, runsOfUser } from '../runs/runs.schemas.js';

/** How many views one user may save: enough for every workflow × a few states, small enough to show at once. */
export const SAVED_VIEWS_PER_USER = 20;

const day = z.iso.date('a day as YYYY-MM-DD');
// Stored in the view's jsonb: PostgreSQL cannot hold NUL, so it is refused here, by name.
const word = freeText().trim().min(1).max(100);

/** The runs list's filters as the console's URL carries them (`#/runs?type=&state=&from=&to=&q=&user=`). */
export const runsFilterSchema = z
  .object({
    type: word.optional().describe('Workflow type.'),
    state: word.optional().describe('Run state.'),
    from: day.optional().describe('First creation day (YYYY-MM-DD).'),
    to: day.optional().describe('Last creation day (YYYY-MM-DD).'),
    q: runIdPrefix.optional().describe('Run id or its beginning.'),
    user: runsOfUser.optional().describe('Admins: a user id, or `*` for everyone.'),
  })
  .strict();

/** A view's name: what a person reads in the list; printable, no leading or trailing spaces. */
export const savedViewName = freeText()
  .trim()
  .min(1, 'a view needs a name')
  .max(60, 'a view name has at most 60 characters')
  // No control characters (they would not show, and two names could look alike).
  .regex(/^[^\p{Cc}\p{Cf}]*$/u, 'a view name has no control or formatting characters');

export const saveViewBody = z.object({ name: savedViewName, filter: runsFilterSchema }).strict();

export const savedViewNameParams = z.object({ name: savedViewName.describe('The view\'s name (URL-encoded).') });

export const savedViewResource = z.object({
  name: z.string(),
  filter: runsFilterSchema,
  createdAt: z.iso.datetime({ offset: true }),
});

export const savedViewsResponse = z.object({
  views: z.array(savedViewResource).describe('Oldest first.'),
  limit: z.int().positive().describe('How many views one user may save.'),
});
