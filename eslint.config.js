import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { dependencyPlugin } from './scripts/dependency-rule.mjs';

export default tseslint.config(
  // test/kinds/*: a kind's files for the places they take in a copy of the checkout, linted there (test/kind-as-files.test.ts).
  { ignores: ['dist/', 'node_modules/', 'src/generated/', 'coverage/', '**/.tenantform/', 'test/kinds/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable' } },
  },
  // The action's github-script steps are CommonJS modules: require() is how they import.
  { files: ['action/**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        fetch: 'readonly',
        structuredClone: 'readonly',
        performance: 'readonly',
        queueMicrotask: 'readonly',
        setImmediate: 'readonly',
        URLSearchParams: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  // Type-aware rules for the TypeScript files (all of them are in tsconfig.json):
  // a promise nobody awaits, or one handed where a plain callback is expected,
  // loses its rejection.
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  // Each function of src/ stays readable at once (STYLE.md: find the seam
  // before 80 lines); a closure that builds a module counts as one function,
  // so a module is built from named functions or a small class. Tests and
  // the generated code are exempt.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts', 'src/generated/**'],
    rules: { 'max-lines-per-function': ['error', { max: 80 }] },
  },
  // The dependency rule of docs/architecture.md: data flows one way and no
  // module of src/ imports upstream (scripts/dependency-rule.mjs lists what each
  // folder may import). Tests may import anything.
  {
    files: ['src/**/*.ts', 'src/**/*.cjs'],
    ignores: ['src/**/*.test.ts'],
    plugins: { tenantform: dependencyPlugin(import.meta.dirname) },
    rules: { 'tenantform/dependency-rule': 'error' },
  },
);
