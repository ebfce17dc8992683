import './ts-resolve.mjs';

export default async function globalSetup() {
  const { exportInfraToEnv, startInfra } = await import('../src/infra.ts');
  const infra = await startInfra();
  globalThis.__OPENPAW_INFRA__ = infra;
  exportInfraToEnv(infra);
}
