import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/**
 * ARCHITECTURE.md's nevers as lint (tags in each project.json): apps depend on libs only; contracts
 * depend on nothing; the gateway and the coordinator never use providers (the gateway may use the
 * blob entry point, `@openpaw/providers/blob`: ADR 0012, and the key vault's, `@openpaw/providers/keys`: ADR 0013). Test kits (`@openpaw/testing`,
 * `@openpaw/testkit`) only from specs, `testing/` and `test-support/` folders and benches: an import
 * rule, since Nx's tag constraints follow every file's edges, specs' included.
 */
const moduleBoundaries = {
  allow: ['@openpaw/providers/blob', '@openpaw/providers/keys'],
  depConstraints: [
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
    { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
    { sourceTag: 'type:deploy', onlyDependOnLibsWithTags: ['type:lib'] },
    { sourceTag: 'scope:contracts', onlyDependOnLibsWithTags: ['scope:contracts'] },
    { sourceTag: 'role:gateway', notDependOnLibsWithTags: ['scope:providers'] },
    { sourceTag: 'role:coordinator', notDependOnLibsWithTags: ['scope:providers'] },
  ],
};
const TEST_KITS = ['@openpaw/testing', '@openpaw/testkit'];
/** Every rule block that restricts imports repeats these: a block's options replace the ones before it. */
const TEST_KIT_IMPORTS = TEST_KITS.map((name) => ({ name, message: 'test kits are for specs, testing/ folders and benches only', allowTypeImports: false }));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tools/**', '.run/**', 'contracts/**', '**/*.mjs', '**/*.js', '**/*.cjs'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': ['error', moduleBoundaries],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: TEST_KIT_IMPORTS },
      ],
    },
  },
  {
    // Every service imports @openpaw/providers; the maths engine (~100 MB) loads only when the local
    // model is first asked (local-chat-model.ts imports math-solver.ts dynamically). Types are free.
    files: ['libs/providers/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/test-support/**', 'libs/providers/src/llm/local/math-solver.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            ...TEST_KIT_IMPORTS,
            { name: '@openpaw/maths', message: 'the maths engine loads lazily in the providers (see local-chat-model.ts)', allowTypeImports: true },
          ],
          patterns: [{ regex: '(^|/)math-solver\\.js$', message: 'math-solver loads lazily (import() in local-chat-model.ts)', allowTypeImports: true }],
        },
      ],
    },
  },
  {
    // Spec 03: without a model, candidates are ranked only on what search and recognition returned.
    // The ranking (visual-search's domain, the coordinator's visual-degrees workflow, the shared rules)
    // may not read the local world, whose graph would make the bench's figures a lookup.
    files: ['apps/visual-search/src/domain/**/*.ts', 'apps/coordinator/src/workflows/visual-degrees/**/*.ts', 'libs/contracts/src/visual-degrees/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/testing/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            ...TEST_KIT_IMPORTS,
            { name: '@openpaw/providers', message: "the visual-degrees ranking may not read the providers' local world (spec 03); pass what search and recognition returned", allowTypeImports: true },
          ],
          patterns: [{ regex: '(^|/)visual-world(/|$)', message: 'the visual-degrees ranking may not read the local world (spec 03)', allowTypeImports: false }],
        },
      ],
    },
  },
  {
    // Test kits may be used by specs, test-support folders and benches, and nowhere else.
    files: ['**/*.spec.ts', '**/testing/**/*.ts', '**/test-support/**/*.ts', 'bench/**/*.ts', 'libs/testing/**/*.ts', 'libs/testkit/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
  {
    // Benches reach an app only through its public module (`apps/<app>/src/public-api.ts`), never its internals.
    files: ['bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)apps/[^/]+/src/(?!public-api\\.js$)',
              message: 'benches import an app only through its public module, apps/<app>/src/public-api.js (export what the bench needs there)',
            },
          ],
        },
      ],
    },
  },
  {
    // Configuration is read from the environment once, at bootstrap, validated, then passed down: in an
    // app only its entry point (`main.ts`) and its settings (`config.ts`) read `process.env`. The
    // gateway's `dev-token.ts` is a second entry point (a script run by hand). Specs and test helpers may.
    files: ['apps/*/src/**/*.ts', 'apps/*/src/**/*.tsx'],
    ignores: ['apps/*/src/main.ts', 'apps/*/src/config.ts', 'apps/gateway/src/dev-token.ts', '**/*.spec.ts', '**/testing/**', '**/test-support/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: "read configuration in the app's config.ts (called from main.ts) and pass the validated settings down (e.g. settings.providerEnv)",
        },
      ],
    },
  },
  {
    // Specs use jest's loosely typed matchers (expect.any, expect.objectContaining) on purpose.
    files: ['**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
