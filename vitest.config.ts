import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Limits that catch a hang, not a slow run: CI shares two cores with other jobs, and a test
    // that takes 10 s alone has taken 25 s there. No test asserts a duration.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: more workers than that only thrash, and servers in tests need a core too.
    maxWorkers: 2,
  },
});
