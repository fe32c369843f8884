/**
 * Compiles the plain C++ core of native/gdt with its standalone test program (no Node headers, no
 * addon) and runs it: this keeps native/gdt buildable and testable on its own.
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
if (!gxx) console.warn('native-core.test.ts: g++ not found on PATH, skipping the standalone C++ core tests');

describe.skipIf(!gxx)('native/gdt standalone C++ test (g++ -std=c++17 -O2, no Node headers)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-gdt-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('compiles test_gdt.cc + gdt.cc and exits with code 0', () => {
    const exe = join(dir, 'test_gdt');
    const build = spawnSync(
      'g++',
      ['-std=c++17', '-O2', '-Wall', '-Wextra', '-I', join(root, 'native'),
        join(root, 'native/gdt/test_gdt.cc'), join(root, 'native/gdt/gdt.cc'), '-o', exe],
      { encoding: 'utf8' },
    );
    expect(build.status, `g++ failed:\n${build.stderr}`).toBe(0);
    const run = spawnSync(exe, [], { encoding: 'utf8' });
    expect(run.status, `test_gdt failed:\n${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/all \d+ checks passed/);
  });
});
