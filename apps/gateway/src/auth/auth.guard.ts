import { type CanActivate, type ExecutionContext, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { hasErrorCode } from '@openpaw/contracts';
import { PUBLIC_ROUTE } from '@openpaw/platform';
import type { Request, Response } from 'express';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { type AuthenticatedUser, bearerTokenOf, InvalidTokenError, verifyAccessToken } from './tokens.js';

/** The request after authentication. */
export interface AuthenticatedRequest extends Request {
  user?: AuthenticatedUser;
}

/**
 * Global guard: every route needs a valid bearer token except those marked `@PublicRoute()`
 * (probes, metrics). Failure is a 401 with a JSON body and a `WWW-Authenticate` challenge.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const isPublic = this.reflector.getAllAndOverride<boolean | undefined>(PUBLIC_ROUTE, [context.getHandler(), context.getClass()]);
    if (isPublic === true) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const response = context.switchToHttp().getResponse<Response>();
    const token = bearerTokenOf(request.headers.authorization);
    if (token === undefined) {
      response.setHeader('WWW-Authenticate', 'Bearer realm="openpaw"');
      throw new UnauthorizedException({ error: 'unauthorized', message: 'a bearer token is required' });
    }
    try {
      request.user = await verifyAccessToken(this.config.jwt, token);
      return true;
    } catch (error) {
      // Answered 401 by its code (the HTTP error filter); anything else the verifier threw is an invalid token too.
      const invalid = hasErrorCode(error, 'invalid_token') ? error : new InvalidTokenError('token is not valid');
      response.setHeader('WWW-Authenticate', `Bearer realm="openpaw", error="invalid_token", error_description="${invalid.message}"`);
      throw invalid;
    }
  }
}
