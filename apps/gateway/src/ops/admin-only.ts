import { ForbiddenException } from '@nestjs/common';
import type { AuthenticatedUser } from '../auth/tokens.js';

/** The role a token must carry (claim `roles`) for the operations API. */
export const ADMIN_ROLE = 'admin';

/** 403 unless the caller's token carries the admin role. */
export function requireAdmin(user: AuthenticatedUser): void {
  if (user.roles?.includes(ADMIN_ROLE) !== true) {
    throw new ForbiddenException({ error: 'forbidden', message: `the operations API needs the "${ADMIN_ROLE}" role in the token's roles claim` });
  }
}
