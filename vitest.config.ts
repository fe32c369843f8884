import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Why tests were skipped (a missing data set, tool or privilege), printed at the end of the run.
    reporters: ['default', './test/helpers/skip-reasons.ts'],
    // The scoring-backend calibration cache (kernels/choose.ts) of test runs stays out of the user's home.
    env: { GAPBCFW_CACHE_DIR: mkdtempSync(join(tmpdir(), 'gapbcfw-test-cache-')) },
  },
});
