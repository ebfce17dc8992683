/**
 * `npm run deploy:synth`: writes the synthesized manifests (`deploy/k8s/`), the NATS chart values
 * and the Helm chart (`deploy/helm/openpaw/`). CI fails when the committed files drift from this.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderFiles } from './render.js';
import { DEFAULT_SETTINGS } from './settings.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
rmSync(join(root, 'deploy/k8s'), { recursive: true, force: true });
rmSync(join(root, 'deploy/helm'), { recursive: true, force: true });
for (const [path, content] of Object.entries(renderFiles(DEFAULT_SETTINGS, version))) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
  console.log(`deploy:synth wrote ${path}`);
}
