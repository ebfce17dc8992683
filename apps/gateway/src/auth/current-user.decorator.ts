import { createParamDecorator, type ExecutionContext, UnauthorizedException } from '@nestjs/common';
import type { AuthenticatedRequest } from './auth.guard.js';
import type { AuthenticatedUser } from './tokens.js';

/** The authenticated caller (set by `AuthGuard`). */
export const CurrentUser = createParamDecorator((_data: unknown, context: ExecutionContext): AuthenticatedUser => {
  const user = context.switchToHttp().getRequest<AuthenticatedRequest>().user;
  if (user === undefined) throw new UnauthorizedException({ error: 'unauthorized', message: 'a bearer token is required' });
  return user;
});
