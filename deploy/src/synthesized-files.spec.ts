import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { isPlainExpression, templateExpressions } from './helm-values.js';
import { renderFiles } from './render.js';
import { DEFAULT_SETTINGS } from './settings.js';

const root = join(import.meta.dirname, '../..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const files = renderFiles(DEFAULT_SETTINGS, version);

function listed(dir: string): string[] {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1));
}

describe('committed deploy output', () => {
  it('matches a fresh synthesis (run `npm run deploy:synth` after changing deploy/src)', () => {
    for (const [path, content] of Object.entries(files)) {
      expect({ path, content: existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : '<missing>' }).toEqual({ path, content });
    }
    expect([...listed('deploy/k8s'), ...listed('deploy/helm'), ...listed('deploy/nats')].sort()).toEqual(Object.keys(files).sort());
  });

  it('plain manifests are valid YAML; the Helm templates use plain substitutions and whole-file flags only', () => {
    for (const path of Object.keys(files).filter((p) => p.startsWith('deploy/k8s/'))) {
      for (const doc of parseAllDocuments(files[path] ?? '')) expect(doc.errors).toEqual([]);
    }
    const templates = Object.entries(files).filter(([p]) => p.startsWith('deploy/helm/openpaw/templates/'));
    const expressions = new Set(templates.flatMap(([, content]) => templateExpressions(content)));
    expect([...expressions].filter((e) => !isPlainExpression(e))).toEqual([]);
    // No token of the synthesis is left behind.
    expect(templates.filter(([, content]) => content.includes('__OPENPAW_')).map(([p]) => p)).toEqual([]);
    expect(files['deploy/helm/openpaw/templates/platform.yaml']).not.toContain('kind: Namespace');
  });

  it("reads the same under YAML 1.1, kubectl's and Helm's rules, as under 1.2: no string is left that 1.1 reads as a boolean or a number", () => {
    const changed: string[] = [];
    for (const [path, content] of Object.entries(files).filter(([p]) => p.endsWith('.yaml'))) {
      // A template's flags and substitutions stand for plain strings here (the chart's lint keeps them plain).
      const yaml = content.replace(/^\{\{-? (?:if .*|end) -?\}\}\n/gm, '').replace(/\{\{[^}]*\}\}/g, 'TEMPLATED');
      const asOf = (version: '1.1' | '1.2'): unknown[] => parseAllDocuments(yaml, { version }).map((doc) => doc.toJS() as unknown);
      const [old, current] = [asOf('1.1'), asOf('1.2')];
      current.forEach((doc, i) => {
        if (JSON.stringify(doc) !== JSON.stringify(old[i])) changed.push(`${path} document ${i}`);
      });
    }
    expect(changed).toEqual([]);
    // What kubectl refused: the ConfigMap's provisioning mode, now a quoted string.
    expect(files['deploy/k8s/openpaw.yaml']).toContain('OPENPAW_STREAMS_PROVISION: "off"');
  });

  it('NATS runs 3 replicas with JetStream on PVCs and fsync on every write', () => {
    expect(files['deploy/nats/values.yaml']).toContain('sync_interval: always');
    expect(files['deploy/nats/values.yaml']).toMatch(/cluster:\n\s+enabled: true\n\s+replicas: 3/);
  });
});
