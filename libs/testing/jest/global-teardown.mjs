export default async function globalTeardown() {
  await globalThis.__OPENPAW_INFRA__?.dispose();
}
