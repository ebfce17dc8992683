import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ForbiddenException } from '@nestjs/common';
import { evidenceThumbnailKey } from '@openpaw/contracts';
import { type BlobStore, LocalFsBlobStore, verifyShareToken } from '@openpaw/providers/blob';
import type { Request, Response } from 'express';
import type { ShareLinkVerifier } from '../assets/blobs/blob-store.provider.js';
import { holderProof, SHARE_HOLDER_COOKIE } from '../assets/share-holder.js';
import { SharedController } from '../assets/shared.controller.js';
import { EVIDENCE_THUMBNAIL_URL_SECONDS, EvidenceThumbnailLinks, evidenceThumbnailLink, evidenceThumbnailParams, thumbnailsOf } from './evidence-thumbnails.js';

const at = '2026-11-27T14:00:00.000Z';

describe('evidence thumbnails a run shows', () => {
  it('are its evidence cards’ and its final edges’ thumbnails, nothing else', () => {
    const view = {
      events: [
        { seq: 1, type: 'status', at, data: { message: 'searching', thumbnail: 'aaaaaaaaaaaaaaaa' } },
        { seq: 2, type: 'evidence', at, data: { from: 'A', to: 'B', thumbnail: '0123456789abcdef' } },
        { seq: 3, type: 'evidence', at, data: { from: 'B', to: 'C', thumbnail: null } },
        { seq: 4, type: 'final', at, data: { edges: [{ evidence: [{ thumbnail: 'fedcba9876543210' }, { thumbnail: null }] }] } },
      ],
    };
    expect([...thumbnailsOf(view)].sort()).toEqual(['0123456789abcdef', 'fedcba9876543210']);
    expect(thumbnailsOf({}).size).toBe(0);
  });

  it('are asked for by a 16-hex-digit id; anything else is refused naming the parameter', () => {
    const id = '8a0f7a5e-2b1c-4c1e-9a55-3c3c9d1f8a10';
    expect(evidenceThumbnailParams.safeParse({ id, thumbnail: '0123456789abcdef' }).success).toBe(true);
    const refused = evidenceThumbnailParams.safeParse({ id, thumbnail: '../secret' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.path).toEqual(['thumbnail']);
  });
});

describe('signed evidence thumbnail URLs', () => {
  const SECRET = 'thumbnail-share-secret';
  const issuedAt = new Date('2026-11-27T14:00:00Z');
  const shown = '0123456789abcdef';
  const view = { events: [{ seq: 1, type: 'evidence', at, data: { from: 'A', to: 'B', thumbnail: shown } }] };
  let root: string;
  let blobs: BlobStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'openpaw-thumbnails-'));
    blobs = new LocalFsBlobStore({ rootDir: root, shareSecret: SECRET, shareBaseUrl: 'http://127.0.0.1:3000/v1/shared', now: () => issuedAt });
    await blobs.put(evidenceThumbnailKey(shown), Buffer.from([0xff, 0xd8, 0xff]), { contentType: 'image/jpeg' });
    await blobs.put(evidenceThumbnailKey('fedcba9876543210'), Buffer.from([0xff, 0xd8, 0xff]), { contentType: 'image/jpeg' });
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  /** The gateway's checks of the local store's links, at `now`, with the secret the store signs with. */
  const shareLinks = (now: Date = issuedAt): ShareLinkVerifier =>
    ({ verify: (given: string) => Promise.resolve(verifyShareToken(given, SECRET, now)), holderProof: (scope: string) => Promise.resolve(holderProof(SECRET, scope)) }) as unknown as ShareLinkVerifier;
  /** The refusal of `GET /v1/shared/<token>` for a request carrying `cookie` (refusals are thrown before anything is written). */
  const refusalOf = async (shared: string, now: Date, cookie?: string): Promise<unknown> => {
    const controller = new SharedController(shareLinks(now), blobs);
    const request = { headers: cookie === undefined ? {} : { cookie } } as Request;
    const error = await controller.get({ token: shared }, request, {} as Response).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ForbiddenException);
    return (error as ForbiddenException).getResponse();
  };

  it('are signed for the one thumbnail and the one user, short-lived, and only for a thumbnail the run shows', async () => {
    const links = new EvidenceThumbnailLinks(blobs, shareLinks());
    const link = (await links.sign(view, shown, 'alice', false))?.link;
    expect(evidenceThumbnailLink.parse(link)).toEqual(link);
    expect(link?.expiresAt).toBe(new Date(issuedAt.getTime() + EVIDENCE_THUMBNAIL_URL_SECONDS * 1000).toISOString());
    const token = link?.url.split('/').at(-1) ?? '';
    expect(verifyShareToken(token, SECRET, issuedAt)).toMatchObject({ valid: true, key: evidenceThumbnailKey(shown), scope: 'user:alice' });
    // A thumbnail stored but not shown by this run gets no URL, nor does one shown but gone.
    expect(await links.sign(view, 'fedcba9876543210', 'alice', false)).toBeUndefined();
    await blobs.delete(evidenceThumbnailKey(shown));
    expect(await links.sign(view, shown, 'alice', false)).toBeUndefined();
  });

  it('are refused with 403 naming the problem when expired, altered or not a token', async () => {
    const signed = await new EvidenceThumbnailLinks(blobs, shareLinks()).sign(view, shown, 'alice', false);
    const token = signed?.link.url.split('/').at(-1) ?? '';
    const [payload = '', signature = ''] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const rescoped = `${Buffer.from(JSON.stringify({ ...claims, s: 'user:bob' })).toString('base64url')}.${signature}`;
    const later = new Date(issuedAt.getTime() + EVIDENCE_THUMBNAIL_URL_SECONDS * 1000);
    expect(await refusalOf(token, later)).toMatchObject({ error: 'share_link_expired' });
    expect(await refusalOf(rescoped, issuedAt)).toMatchObject({ error: 'share_link_tampered' });
    expect(await refusalOf(payload, issuedAt)).toMatchObject({ error: 'share_link_malformed' });
  });

  it('come with an HttpOnly, SameSite=Strict holder cookie for the share route; a URL replayed without it, or with another user’s, is refused with 403', async () => {
    const links = new EvidenceThumbnailLinks(blobs, shareLinks());
    const alice = await links.sign(view, shown, 'alice', true);
    const bob = await links.sign(view, shown, 'bob', true);
    expect(alice?.holderCookie).toBe(`${SHARE_HOLDER_COOKIE}=${holderProof(SECRET, 'user:alice')}; Path=/v1/shared; Max-Age=${EVIDENCE_THUMBNAIL_URL_SECONDS}; HttpOnly; SameSite=Strict; Secure`);
    expect((await links.sign(view, shown, 'alice', false))?.holderCookie).not.toContain('Secure');
    const cookieOf = (setCookie: string | undefined): string => String(setCookie?.split(';')[0]);
    const token = alice?.link.url.split('/').at(-1) ?? '';
    const notHolder = { error: 'share_link_not_holder', message: expect.stringContaining('holder cookie') };
    expect(await refusalOf(token, issuedAt)).toMatchObject(notHolder);
    expect(await refusalOf(token, issuedAt, 'theme=dark')).toMatchObject(notHolder);
    expect(await refusalOf(token, issuedAt, cookieOf(bob?.holderCookie))).toMatchObject(notHolder);
    expect(await refusalOf(token, issuedAt, `${SHARE_HOLDER_COOKIE}=${holderProof('another-secret', 'user:alice')}`)).toMatchObject(notHolder);
    // Alice's own cookie passes the check (the content is then served: gateway e2e).
    const served = await new SharedController(shareLinks(), blobs).get({ token }, { headers: { cookie: `theme=dark; ${cookieOf(alice?.holderCookie)}` } } as unknown as Request, {} as Response).catch((thrown: unknown) => thrown);
    expect(served).not.toBeInstanceOf(ForbiddenException);
  });
});
