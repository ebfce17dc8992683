import { randomBytes, randomUUID } from 'node:crypto';
import { Body, Controller, Delete, Get, HttpCode, Inject, NotFoundException, Post, Put, Query, ServiceUnavailableException } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { RESEARCH_WEBHOOK_SECRET_PURPOSE, RESEARCH_WEBHOOK_TEST_EVENT_TYPE, ResearchCompleted, ResearchFailed, SetResearchWebhook, TestResearchWebhook } from '@openpaw/contracts';
import { SecretSealer } from '@openpaw/providers/keys';
import type { z } from 'zod';
import { CurrentUser } from '../../auth/current-user.decorator.js';
import type { AuthenticatedUser } from '../../auth/tokens.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config.js';
import { ApiZodBody, ApiZodQuery, BEARER_SCHEME, openApiSchema } from '../../http/openapi.js';
import { ZodValidationPipe } from '../../http/zod-validation.pipe.js';
import { type CommandPublisher, COMMAND_PUBLISHER, userCommandMeta } from '../../runs/ports.js';
import { errorBody } from '../../runs/runs.schemas.js';
import { ResearchWebhookRegistrations, type WebhookRegistration } from './research-webhook-registrations.js';
import { ResearchWebhookSetReplies } from './research-webhook-set-replies.js';
import { putWebhookBody, WEBHOOK_SIGNATURE, webhookRegistered, webhookTestSent, webhookView, webhookWaitQuery } from './research-webhook.schemas.js';

const WEBHOOK_EVENTS = [ResearchCompleted.subject, ResearchFailed.subject];

/**
 * The caller's optional research webhook (spec 05): registered here, kept and called by the research
 * service (`SetResearchWebhook`), which POSTs each of the caller's `ResearchCompleted` and
 * `ResearchFailed` events to it, signed, retried with backoff. The secret is sealed before it leaves
 * the gateway and is shown only in the `PUT` answer. The gateway records each registration itself
 * (url and times, never the secret) for `GET`.
 */
@ApiTags('research')
@ApiBearerAuth(BEARER_SCHEME)
@ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.', schema: openApiSchema(errorBody) })
@Controller('research/webhook')
export class ResearchWebhookController {
  readonly #sealer: SecretSealer | undefined;
  readonly #unavailable: string | undefined;

  constructor(
    @Inject(COMMAND_PUBLISHER) private readonly publisher: CommandPublisher,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly registrations: ResearchWebhookRegistrations,
    private readonly settings: ResearchWebhookSetReplies,
  ) {
    try {
      this.#sealer = SecretSealer.fromEnv(config.keysEnv ?? {}, 'seal');
    } catch (error) {
      this.#unavailable = error instanceof Error ? error.message : String(error);
    }
  }

  @Get()
  @ApiOperation({
    summary: 'The caller’s research webhook: url, whether a secret is set, when it was registered and last replaced, and its last delivery attempt.',
    description:
      'Never the secret (it is answered once, by `PUT`). This is the registration as the gateway took it; deliveries follow within moments. ' +
      '`lastDelivery` is the latest attempt the research service reported for this registration (null until the first; a `PUT` starts afresh): ' +
      '`delivered` (2xx), `retrying` (another attempt follows) or `failed` (given up: refused, a redirect, a private address, or out of attempts), with the reason.',
  })
  @ApiOkResponse({ schema: openApiSchema(webhookView) })
  @ApiNotFoundResponse({ description: 'The caller has no research webhook (never registered, or removed).', schema: openApiSchema(errorBody) })
  async get(@CurrentUser() user: AuthenticatedUser): Promise<z.output<typeof webhookView>> {
    return { ...(await this.registered(user.userId)), events: [...WEBHOOK_EVENTS] };
  }

  @Post('test')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send one signed test event to the caller’s research webhook.',
    description:
      `The research service (the gateway never calls out) POSTs \`{id, type: "${RESEARCH_WEBHOOK_TEST_EVENT_TYPE}", createdAt, data}\`, signed like every delivery, once (no retry). ` +
      'Its outcome shows as `lastDelivery` of `GET /research/webhook` (with this `eventId`) within moments.',
  })
  @ApiAcceptedResponse({ schema: openApiSchema(webhookTestSent) })
  @ApiNotFoundResponse({ description: 'The caller has no research webhook.', schema: openApiSchema(errorBody) })
  async test(@CurrentUser() user: AuthenticatedUser): Promise<z.output<typeof webhookTestSent>> {
    await this.registered(user.userId);
    const eventId = randomUUID();
    const requestedAt = new Date().toISOString();
    await this.publisher.publish(TestResearchWebhook, { userId: user.userId, eventId, requestedAt }, userCommandMeta(user.userId, eventId));
    return { eventId, eventType: RESEARCH_WEBHOOK_TEST_EVENT_TYPE, requestedAt };
  }

  @Put()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Register (or replace) the caller’s research webhook.',
    description:
      'Every `ResearchCompleted` and `ResearchFailed` of the caller is POSTed to `url` as JSON `{id, type, createdAt, data}`, with headers ' +
      `\`${WEBHOOK_SIGNATURE.header}: sha256=<hex>\`, \`${WEBHOOK_SIGNATURE.timestampHeader}: <unix seconds>\` and \`${WEBHOOK_SIGNATURE.eventIdHeader}\`. ` +
      'The signature is HMAC-SHA256 with the secret over `<timestamp>.<body>`: check it, refuse old timestamps (replay) and event ids already seen (a delivery may repeat). ' +
      'A non-2xx answer or no answer within the timeout is retried with backoff. The secret is answered once; without `secret` one is generated. ' +
      'Takes effect within moments; with `?wait=<seconds>` the answer waits until the research service has taken it (`active: true`): every research event handled after that is delivered.',
  })
  @ApiZodQuery(webhookWaitQuery)
  @ApiZodBody(putWebhookBody, { examples: { generatedSecret: { url: 'https://example.org/openpaw-webhook' }, ownSecret: { url: 'https://example.org/openpaw-webhook', secret: 'whsec_my-own-signing-secret-0123456789' } } })
  @ApiOkResponse({ schema: openApiSchema(webhookRegistered) })
  @ApiServiceUnavailableResponse({ description: 'Secrets cannot be sealed (neither `OPENPAW_KEY_SEALING_PUBLIC_KEY` nor `OPENPAW_KEY_ENCRYPTION_KEY` is configured).', schema: openApiSchema(errorBody) })
  async put(
    @CurrentUser() user: AuthenticatedUser,
    @Body(new ZodValidationPipe(putWebhookBody)) body: z.output<typeof putWebhookBody>,
    @Query(new ZodValidationPipe(webhookWaitQuery)) query: z.output<typeof webhookWaitQuery>,
  ): Promise<z.output<typeof webhookRegistered>> {
    const secret = body.secret ?? `whsec_${randomBytes(32).toString('base64url')}`;
    const sealedSecret = this.sealer().seal(RESEARCH_WEBHOOK_SECRET_PURPOSE, user.userId, secret);
    // Recorded (and versioned) before it is sent: a failed send answers 5xx, and the caller's retry, a later version, sets both.
    const version = await this.registrations.register(user.userId, body.url, new Date());
    const active = await this.send(user.userId, body.url, sealedSecret, version, query.wait ?? 0);
    return { url: body.url, active, secret, signature: { ...WEBHOOK_SIGNATURE }, events: [...WEBHOOK_EVENTS] };
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove the caller’s research webhook (no more deliveries; idempotent).' })
  @ApiZodQuery(webhookWaitQuery)
  @ApiNoContentResponse({ description: 'Removed (or there was none); with `?wait=`, once the research service has taken the removal or the wait is over.' })
  async remove(@CurrentUser() user: AuthenticatedUser, @Query(new ZodValidationPipe(webhookWaitQuery)) query: z.output<typeof webhookWaitQuery>): Promise<void> {
    const version = await this.registrations.remove(user.userId, new Date());
    await this.send(user.userId, null, null, version, query.wait ?? 0);
  }

  private async registered(userId: string): Promise<WebhookRegistration> {
    const registration = await this.registrations.find(userId);
    if (registration === undefined) {
      throw new NotFoundException({ error: 'webhook_not_found', message: 'no research webhook is registered for this user; PUT /research/webhook {url} registers one' });
    }
    return registration;
  }

  private sealer(): SecretSealer {
    if (this.#sealer === undefined) throw new ServiceUnavailableException({ error: 'secrets_not_configured', message: `webhook secrets cannot be sealed: ${this.#unavailable ?? ''}` });
    return this.#sealer;
  }

  /** Sends the setting; true when the research service said, within `waitSeconds`, that it is in force. */
  private async send(userId: string, url: string | null, sealedSecret: string | null, version: number, waitSeconds: number): Promise<boolean> {
    const taken = await this.settings.request(ResearchWebhookSetReplies.settingId(userId, version), { timeoutMs: waitSeconds * 1000 }, () =>
      this.publisher.publish(SetResearchWebhook, { userId, url, sealedSecret, version }, userCommandMeta(userId, randomUUID())),
    );
    return taken !== undefined;
  }
}
