import { BadGatewayException, Body, Controller, Get, HttpCode, Inject, NotFoundException, Post, UnauthorizedException } from '@nestjs/common';
import { ApiBadGatewayResponse, ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { hasErrorCode } from '@openpaw/contracts';
import { PublicRoute } from '@openpaw/platform';
import type { z } from 'zod';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config.js';
import { ApiZodBody, openApiSchema } from '../../http/openapi.js';
import { ZodValidationPipe } from '../../http/zod-validation.pipe.js';
import { errorBody, validationErrorBody } from '../../runs/runs.schemas.js';
import { DEFAULT_ROLES_CLAIM, verifyAccessToken } from '../tokens.js';
import { OidcProviderClient } from './oidc-provider-client.js';
import { OIDC_SCOPE, oidcSignInAnswer, redeemCodeBody, redeemCodeResponse } from './oidc-sign-in.schemas.js';

const NOT_CONFIGURED_MESSAGE = 'this deployment has no OIDC sign-in (OPENPAW_OIDC_ISSUER and OPENPAW_OIDC_CLIENT_ID)';
const notConfigured = (): NotFoundException => new NotFoundException({ error: 'oidc_not_configured', message: NOT_CONFIGURED_MESSAGE });

/** The console's OIDC sign-in (authorization code + PKCE): where to send the browser, and redeeming the code. Public routes. */
@ApiTags('auth')
@Controller('auth/oidc')
export class OidcSignInController {
  readonly #provider: OidcProviderClient | undefined;

  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {
    const { oidcIssuer, oidcClientId } = config.jwt;
    this.#provider = oidcIssuer !== undefined && oidcClientId !== undefined ? new OidcProviderClient(oidcIssuer) : undefined;
  }

  @Get()
  @PublicRoute()
  @ApiOperation({
    summary: 'How the console signs in with OIDC here: the issuer, its authorization endpoint, the client id and scope.',
    description: 'Where no OIDC sign-in is configured (dev tokens only), `{ configured: false, message }`.',
  })
  @ApiOkResponse({ schema: openApiSchema(oidcSignInAnswer) })
  @ApiBadGatewayResponse({ description: 'The issuer\'s discovery document could not be read.', schema: openApiSchema(errorBody) })
  async signInConfig(): Promise<z.output<typeof oidcSignInAnswer>> {
    const provider = this.#provider;
    const clientId = this.config.jwt.oidcClientId;
    if (provider === undefined || clientId === undefined) return { configured: false, message: NOT_CONFIGURED_MESSAGE };
    const endpoints = await provider.endpoints().catch((error: unknown) => {
      throw new BadGatewayException({ error: 'oidc_unreachable', message: error instanceof Error ? error.message : 'the identity provider could not be read' });
    });
    return { configured: true, issuer: endpoints.issuer, authorizationEndpoint: endpoints.authorizationEndpoint, clientId, scope: OIDC_SCOPE, rolesClaim: this.config.jwt.rolesClaim ?? DEFAULT_ROLES_CLAIM };
  }

  @Post('token')
  @HttpCode(200)
  @PublicRoute()
  @ApiOperation({
    summary: 'Redeem the authorization code the provider redirected back with (PKCE), for a bearer token of this API.',
    description: 'The provider\'s access token is verified as every request\'s is (its JWKS, issuer, audience, expiry, RS256/ES256) before it is handed back.',
  })
  @ApiZodBody(redeemCodeBody, { examples: { code: { code: 'SplxlOBeZQQYbYS6WxSbIA', codeVerifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', redirectUri: 'https://console.example.org/' } } })
  @ApiOkResponse({ schema: openApiSchema(redeemCodeResponse) })
  @ApiBadRequestResponse({ description: 'Invalid input; `issues` name the fields.', schema: openApiSchema(validationErrorBody) })
  @ApiUnauthorizedResponse({ description: 'The provider refused the code (used, expired, wrong verifier), or its token is not valid for this API.', schema: openApiSchema(errorBody) })
  @ApiNotFoundResponse({ description: 'No OIDC sign-in configured.', schema: openApiSchema(errorBody) })
  @ApiBadGatewayResponse({ description: 'The identity provider could not be reached.', schema: openApiSchema(errorBody) })
  async redeem(@Body(new ZodValidationPipe(redeemCodeBody)) body: z.output<typeof redeemCodeBody>): Promise<z.output<typeof redeemCodeResponse>> {
    const provider = this.#provider;
    const clientId = this.config.jwt.oidcClientId;
    if (provider === undefined || clientId === undefined) throw notConfigured();
    const exchange = await provider.redeem({ clientId, ...body }).catch((error: unknown) => {
      throw new BadGatewayException({ error: 'oidc_unreachable', message: error instanceof Error ? error.message : 'the identity provider could not be reached' });
    });
    if (exchange.kind === 'refused') {
      throw new UnauthorizedException({ error: 'oidc_sign_in_refused', message: `the identity provider refused the code: ${exchange.error} (${exchange.description})` });
    }
    try {
      await verifyAccessToken(this.config.jwt, exchange.accessToken);
    } catch (error) {
      const reason = hasErrorCode(error, 'invalid_token') && error instanceof Error ? error.message : 'token is not valid';
      throw new UnauthorizedException({ error: 'oidc_sign_in_refused', message: `the identity provider's token is not valid for this API: ${reason}` });
    }
    return { accessToken: exchange.accessToken, expiresIn: exchange.expiresIn };
  }
}
