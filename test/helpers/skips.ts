// Tests that cannot run here say why: `describe(name, needsData('ocr', 'letter.data.gz'), fn)` or
// `it(name, unless(hasFifo, 'needs mkfifo'), fn)` skip with a reason, which test/helpers/skip-reasons.ts (a vitest
// reporter, in vitest.config.ts and .ci/run) prints at the end of the run, grouped, with the number of tests.
import { relative } from 'node:path';
import type { TestOptions } from 'vitest';
import { dataPath, dataRoot, hasData } from '../../src/data/paths.js';

declare module 'vitest' {
  interface TaskMeta {
    /** Why the test (or every test of the suite) is skipped here. */
    skipReason?: string;
  }
}

/** Test options: run when `ok`, else skip with `reason`. */
export function unless(ok: boolean, reason: string): TestOptions {
  return ok ? {} : { skip: true, meta: { skipReason: reason } };
}

/** Where the data sets are looked for, as the reason names it: `GAPBCFW_DATA (../shared/data)` or the variable's value. */
export function dataLocation(): string {
  const env = process.env.GAPBCFW_DATA;
  return env ? `GAPBCFW_DATA (${env})` : `GAPBCFW_DATA (${relative(process.cwd(), dataRoot()) || dataRoot()})`;
}

/**
 * Test options that skip unless every data path exists (each path a list of parts under the data folder, or the
 * parts of one path), with the reason "needs GAPBCFW_DATA (../shared/data): ocr/letter.data.gz". Under
 * GAPBCFW_REQUIRE_DATA=1 (.ci/run) nothing skips: missing data then fails the tests.
 */
export function needsData(...paths: (string | string[])[]): TestOptions {
  const list = paths.every((p) => typeof p === 'string') ? [paths as string[]] : paths.map((p) => (typeof p === 'string' ? [p] : p));
  const missing = list.filter((parts) => !hasData(...parts));
  if (process.env.GAPBCFW_REQUIRE_DATA === '1') return {};
  return unless(missing.length === 0, `needs ${dataLocation()}: ${missing.map((parts) => relative(dataRoot(), dataPath(...parts))).join(', ')} missing`);
}

/** The first of several options that skips (each with its reason), else none. */
export function allOf(...options: TestOptions[]): TestOptions {
  return options.find((o) => o.skip) ?? {};
}

/**
 * Runs with the release addon only: bit-for-bit fixtures of its sums, which another addon (GAPBCFW_ADDON: the
 * sanitizers' -O1 build) rounds differently in the last bits.
 */
export const releaseAddonOnly: TestOptions = unless(process.env.GAPBCFW_ADDON === undefined, 'runs with the release addon only (GAPBCFW_ADDON is set: a sanitizer build)');
