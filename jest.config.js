// Two tiers: pure unit specs, and integration/e2e specs that share one real infra harness
// (nats-server + PostgreSQL from local binaries, or testcontainers where Docker is reachable).
const transform = {
  '^.+\\.ts$': [
    '@swc/jest',
    {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
        target: 'es2023',
      },
      module: { type: 'es6' },
      sourceMaps: 'inline',
    },
  ],
};
const moduleNameMapper = {
  // A lib's secondary entry point (`@openpaw/providers/blob`): its folder's index.
  '^@openpaw/([^/]+)/(.+)$': '<rootDir>/libs/$1/src/$2/index.ts',
  '^@openpaw/(.*)$': '<rootDir>/libs/$1/src/index.ts',
  '^(\\.{1,2}/.*)\\.js$': '$1',
};
const common = {
  rootDir: import.meta.dirname,
  extensionsToTreatAsEsm: ['.ts'],
  transform,
  moduleNameMapper,
  testEnvironment: 'node',
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/.tools/', '<rootDir>/.run/'],
};
export default {
  // Global options (jest ignores them per project); integration suites start real servers.
  testTimeout: 120000,
  // Never in band: on a 2-core machine jest's default (cores - 1 = 1 worker) runs every suite inside
  // the parent process, whose heap then grows with each ESM module graph until it aborts (CI exit 134
  // at 4 GB after ~300 suites). Workers are recycled once they hold more than the limit.
  maxWorkers: 2,
  workerIdleMemoryLimit: '2GB',
  // Every failing test is listed again at the very end of a run, however few suites ran (jest's default
  // does it only above 20 suites): a CI log read from its tail (the boot tests run last) names them.
  reporters: [['default', { summaryThreshold: 0 }]],
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,bench,tools,deploy}/**/*.spec.ts'],
      testPathIgnorePatterns: ['\\.int\\.spec\\.ts$', '\\.e2e\\.spec\\.ts$', '\\.boot\\.spec\\.ts$'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs,tools,deploy}/**/*.int.spec.ts', '<rootDir>/{apps,libs}/**/*.e2e.spec.ts'],
      globalSetup: '<rootDir>/libs/testing/jest/global-setup.mjs',
      globalTeardown: '<rootDir>/libs/testing/jest/global-teardown.mjs',
    },
    {
      // Whole-platform boots (deploy/README.md, "The boot test"): each starts its own servers and every
      // service, so scripts/test.sh runs this project on its own, one file at a time (--runInBand).
      ...common,
      displayName: 'boot',
      testMatch: ['<rootDir>/{apps,libs,tools,deploy}/**/*.boot.spec.ts'],
    },
  ],
};
