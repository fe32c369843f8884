// Compiles a standalone C++ test program of a native core (no Node headers) with g++ and runs it.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** True when g++ is on PATH (the native tests are skipped with a warning otherwise). */
export const hasGxx: boolean = (() => {
  try {
    execFileSync('g++', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn('g++ not found on PATH: the standalone C++ core tests are skipped');
    return false;
  }
})();

/** Builds `sources` (paths below native/) with -std=c++17 -O2 -Wall -Wextra, runs it, and returns its stdout. */
export function compileAndRun(name: string, sources: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), `gapbcfw-${name}-`));
  try {
    const exe = join(dir, name);
    const build = spawnSync('g++', ['-std=c++17', '-O2', '-Wall', '-Wextra', '-I', join(root, 'native'), ...sources.map((s) => join(root, 'native', s)), '-o', exe], {
      encoding: 'utf8',
    });
    expect(build.status, `g++ failed:\n${build.stderr}`).toBe(0);
    const run = spawnSync(exe, [], { encoding: 'utf8' });
    expect(run.status, `${name} failed:\n${run.stdout}\n${run.stderr}`).toBe(0);
    return run.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
