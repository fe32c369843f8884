/**
 * Compiles the plain C++ core of native/gdt with its standalone test program (no Node headers, no
 * addon) and runs it: this keeps native/gdt buildable and testable on its own.
 */
import { describe, expect, it } from 'vitest';
import { compileAndRun, hasGxx } from './helpers/native-program.js';

describe.skipIf(!hasGxx)('native/gdt standalone C++ test (g++ -std=c++17 -O2, no Node headers)', () => {
  it('compiles test_gdt.cc + gdt.cc and exits with code 0', () => {
    expect(compileAndRun('test_gdt', ['gdt/test_gdt.cc', 'gdt/gdt.cc'])).toMatch(/all \d+ checks passed/);
  });
});
