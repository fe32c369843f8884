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
    // The scoring-backend calibration cache (kernels/choose.ts) of test runs stays out of the user's home.
    env: { GAPBCFW_CACHE_DIR: mkdtempSync(join(tmpdir(), 'gapbcfw-test-cache-')) },
  },
});
