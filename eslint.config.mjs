import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// Each app is a program of its own: none imports another's source, tests included. What tests of
// several apps share lives in test/support (which may import any app), the contracts in libs/.
const APPS = readdirSync(new URL('apps', import.meta.url), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
const noOtherAppsSource = APPS.map((app) => ({
  files: [`apps/${app}/**/*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: APPS.filter((other) => other !== app).flatMap((other) => [`**/${other}/src`, `**/${other}/src/**`]),
            message: `apps/${app} may not import another app's source; share test helpers through test/support and types through libs/contracts.`,
          },
        ],
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'test/fixtures/**', '.nx/**', '.weft-test/**', '.gpu-bench/**', 'scripts/**/*.mjs', 'vitest.config.ts', 'eslint.config.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx },
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: [],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'scope:contracts', onlyDependOnLibsWithTags: [] },
          ],
        },
      ],
    },
  },
  {
    // The web client (apps/web): React's hook rules.
    files: ['apps/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    // Tests and their helpers (src/test, src/testing: kept out of the build) may import the shared test helpers in test/support, which belong to no project.
    files: ['**/*.spec.ts', '**/*.int-spec.ts', 'e2e/**/*.ts', 'test/**/*.ts', '*/*/src/test/**/*.ts', '*/*/src/testing/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  ...noOtherAppsSource,
);
