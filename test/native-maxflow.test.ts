/**
 * Compiles the plain C++ core of native/maxflow (Boykov-Kolmogorov + Kohli-Torr reuse, DIMACS) with
 * its standalone test program (no Node headers, no addon) and runs it: native/maxflow stays
 * buildable and testable on its own. The program checks FlowGraph against an independent
 * Edmonds-Karp on random graphs, reuse against fresh solves, DIMACS round trips and error lines.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

function hasGxx(): boolean {
  try {
    execFileSync('g++', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const gxx = hasGxx();
if (!gxx) console.warn('native-maxflow.test.ts: g++ not found on PATH, skipping the standalone C++ max-flow tests');

describe.skipIf(!gxx)('native/maxflow standalone C++ test (g++ -std=c++17 -O2, no Node headers)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-maxflow-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('compiles test_maxflow.cc + flow_graph.cc + dimacs.cc and every check passes', () => {
    const exe = join(dir, 'test_maxflow');
    const src = (f: string) => join(root, 'native/maxflow', f);
    const build = spawnSync(
      'g++',
      ['-std=c++17', '-O2', '-Wall', '-Wextra', '-I', join(root, 'native'),
        src('test_maxflow.cc'), src('flow_graph.cc'), src('dimacs.cc'), '-o', exe],
      { encoding: 'utf8' },
    );
    expect(build.status, `g++ failed:\n${build.stderr}`).toBe(0);
    const run = spawnSync(exe, [], { encoding: 'utf8' });
    expect(run.status, `test_maxflow failed:\n${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/maxflow tests: \d+ checks, 0 failures/);
  });
});
