import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Each file starts its own server and database; two workers fit the 2-core machines.
    pool: 'forks',
    maxWorkers: 2,
  },
});
