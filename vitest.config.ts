import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/log-guard.ts'],
    // A `.env` with secret-looking values at the repository root for the whole run (issue 26).
    globalSetup: ['test/setup/dotenv-at-root.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The machine has 2 cores; integration files start servers and child processes.
    maxWorkers: 2,
    reporters: ['default', ['json', { outputFile: '.vitest-report.json' }]],
  },
});
