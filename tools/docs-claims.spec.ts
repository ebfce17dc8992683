import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { catalog, laneOf } from '@openpaw/contracts';
import { JWKS_ALGORITHMS } from '../apps/gateway/src/auth/jwks.js';
import { DEV_SECRET_ALGORITHM } from '../apps/gateway/src/auth/tokens.js';

/**
 * Claims the docs make about what is built, checked against the code (issue 26): the docs said the
 * gateway takes HS256 only after JWKS/OIDC worked, and called lanes future after the catalog had them.
 * Each check reads the docs and the code, so the next such change fails here until the docs follow.
 */
const root = join(import.meta.dirname, '..');
const SKIPPED = new Set(['node_modules', 'dist', '.tools', '.git', '.run']);

/** Every Markdown file of the repository, by its path from the root. Audits are left out: they quote stale claims to record them. */
function markdownFiles(dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return relative(root, path) === join('docs', 'audits') ? [] : markdownFiles(path);
    return entry.name.endsWith('.md') ? [relative(root, path)] : [];
  });
}

const docs = markdownFiles().map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));
const openapi = JSON.parse(readFileSync(join(root, 'apps/gateway/openapi.json'), 'utf8')) as { info: { description: string } };

/** A doc's paragraphs (blank-line separated), joined onto one line each. */
const paragraphsOf = (text: string): string[] => text.split(/\n\s*\n/).map((paragraph) => paragraph.replace(/\s*\n\s*/g, ' '));

/** Its sentences, roughly: a full stop, question or exclamation mark and a space end one. */
const sentencesOf = (text: string): string[] => paragraphsOf(text).flatMap((paragraph) => paragraph.split(/(?<=[.!?])\s+/));

describe('the docs say what the code does', () => {
  describe('the bearer tokens the gateway accepts', () => {
    const accepted = [DEV_SECRET_ALGORITHM, ...JWKS_ALGORITHMS];
    /** JWS algorithm names (RFC 7518), as a doc would write them. */
    const ALGORITHM = /\b(?:HS|RS|ES|PS)(?:256|384|512)\b|\bEdDSA\b/g;
    /** What tells a reader which tokens are accepted: the paragraphs showing the `Authorization: Bearer` header, and the OpenAPI's description. */
    const tokenDescriptions = [
      ...docs.flatMap(({ path, text }) => paragraphsOf(text).filter((paragraph) => paragraph.includes('Authorization: Bearer')).map((paragraph) => ({ where: path, paragraph }))),
      { where: 'apps/gateway/openapi.json info.description', paragraph: openapi.info.description },
    ];

    it('are described, wherever the docs say which tokens a request needs, by every algorithm the code verifies', () => {
      expect(tokenDescriptions.length).toBeGreaterThanOrEqual(2);
      const missing = tokenDescriptions.flatMap(({ where, paragraph }) => accepted.filter((algorithm) => !paragraph.includes(algorithm)).map((algorithm) => `${where} leaves out ${algorithm}: "${paragraph.slice(0, 120)}…"`));
      expect(missing).toEqual([]);
    });

    it('are never said to be of an algorithm the code does not verify, nor of one algorithm only', () => {
      const sources = [...docs, { path: 'apps/gateway/openapi.json', text: openapi.info.description }];
      const unknown = sources.flatMap(({ path, text }) => [...text.matchAll(ALGORITHM)].map(([name]) => name).filter((name) => !accepted.includes(name)).map((name) => `${path}: ${name}`));
      expect(unknown).toEqual([]);
      // "HS256 only", "only RS256", "(JWT, HS256)": one algorithm said to be all there is.
      const onlyOne = new RegExp(`\\bonly (?:${ALGORITHM.source})|(?:${ALGORITHM.source}) only\\b|\\(JWT, (?:${ALGORITHM.source})\\)`, 'i');
      const claims = sources.flatMap(({ path, text }) => sentencesOf(text).filter((sentence) => onlyOne.test(sentence)).map((sentence) => `${path}: "${sentence}"`));
      expect(claims).toEqual([]);
    });
  });

  describe('lanes', () => {
    const used = [...new Set(catalog.map((definition) => laneOf(definition)).filter((lane): lane is string => lane !== undefined))].sort();
    const asyncapi = readFileSync(join(root, 'contracts/asyncapi.yaml'), 'utf8');

    it('each lane a catalog command is consumed on is named where the README lists them, and carried by asyncapi.yaml (as contracts/README.md says)', () => {
      expect(used.length).toBeGreaterThan(2);
      const readme = docs.find((doc) => doc.path === 'README.md')?.text ?? '';
      const start = readme.indexOf('## Flow control');
      expect(start).toBeGreaterThanOrEqual(0);
      const flowControl = readme.slice(start, readme.indexOf('\n## ', start + 3));
      expect(used.filter((lane) => !flowControl.includes(`\`${lane}\``))).toEqual([]);
      const contractsReadme = docs.find((doc) => doc.path === join('contracts', 'README.md'))?.text ?? '';
      expect(contractsReadme).toContain('x-openpaw-lane');
      expect(used.filter((lane) => !asyncapi.includes(`x-openpaw-lane: ${lane}`))).toEqual([]);
    });

    it('are never spoken of as still to come', () => {
      // "once the catalog declares lanes", "lanes (future)", "not yet": a sentence on lanes in the future tense.
      const FUTURE = /\b(?:future|planned|not yet|to come|someday|TODO)\b|\bonce (?:the|it|a) \w+ (?:declares|supports|has|gets)\b/i;
      const LANE = /\blanes?\b|x-openpaw-lane/i;
      // Within one clause, so "runs admitted but not yet projected, … the critical lanes' backlog" is not one.
      const clausesOf = (sentence: string): string[] => sentence.split(/[,;:()]/);
      const claims = docs.flatMap(({ path, text }) =>
        sentencesOf(text)
          .filter((sentence) => clausesOf(sentence).some((clause) => LANE.test(clause) && FUTURE.test(clause)))
          .map((sentence) => `${path}: "${sentence}"`),
      );
      expect(claims).toEqual([]);
    });
  });
});
