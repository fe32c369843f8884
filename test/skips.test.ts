// Tests that cannot run here say why (test/helpers/skips.ts): every skip in test/ carries a reason, and a run
// without the data sets ends with "needs GAPBCFW_DATA (...)" lines naming what is missing.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('skipped tests say why', () => {
  it('no test file skips without a reason (no .skipIf, .runIf, .skip or .todo; options from test/helpers/skips.ts instead)', () => {
    const silent: string[] = [];
    for (const file of readdirSync(join(root, 'test')).filter((f) => f.endsWith('.test.ts'))) {
      readFileSync(join(root, 'test', file), 'utf8')
        .split('\n')
        .forEach((line, k) => {
          if (/\b(describe|it|test)\.(skipIf|runIf|skip|todo)\b/.test(line)) silent.push(`test/${file}:${k + 1}: ${line.trim()}`);
        });
    }
    expect(silent).toEqual([]);
  });

  it('a run without the data sets ends with the reason and what is missing', () => {
    const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
    const env: NodeJS.ProcessEnv = { ...process.env, GAPBCFW_DATA: join(root, 'no-such-data'), NO_COLOR: '1', FORCE_COLOR: '0' };
    delete env.GAPBCFW_REQUIRE_DATA;
    delete env.VITEST;
    const r = spawnSync(process.execPath, [vitest, 'run', 'test/idx.test.ts'], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.status, out).toBe(0);
    expect(out).toMatch(/\nSkipped 1 test:\n {2}1 needs GAPBCFW_DATA \(.*no-such-data\): multiclass\/fashion_mnist_test missing \(test\/idx\.test\.ts\)\n/);
  }, 120_000);
});
