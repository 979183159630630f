import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` (the tests beside the code in src/, the fast loop:
 * `npm run test:unit`) and `integration` (test/: CLI processes, the emulator
 * over sockets, PostgreSQL, examples, the bench smoke). `npm test` and CI run
 * both; `npm run coverage` measures both.
 */
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'] } },
      {
        extends: true,
        // test/kinds/*: a kind's files laid out as in the checkout, which test/kind-as-files.test.ts adds to a copy.
        test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: ['test/kinds/**'] },
      },
    ],
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'src/**/*.cjs'],
      exclude: ['src/**/*.test.ts', 'src/generated/**'],
      reporter: ['text-summary', 'html', 'json-summary'],
      reportsDirectory: 'coverage',
    },
  },
});
