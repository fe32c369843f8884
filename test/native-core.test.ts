/**
 * Compiles the plain C++ cores of native/gdt and native/pose with their standalone test programs (no Node headers, no
 * addon) and runs them: this keeps those cores buildable and testable on their own.
 */
import { describe, expect, it } from 'vitest';
import { compileAndRun, hasGxx } from './helpers/native-program.js';
import { unless } from './helpers/skips.js';

describe('native/gdt standalone C++ test (g++ -std=c++17 -O2, no Node headers)', unless(hasGxx, 'needs g++ (C++17)'), () => {
  it('compiles test_gdt.cc + gdt.cc and exits with code 0', () => {
    expect(compileAndRun('test_gdt', ['gdt/test_gdt.cc', 'gdt/gdt.cc'])).toMatch(/all \d+ checks passed/);
  });
});

describe('native/pose standalone C++ test (tree max-sum against brute force, batch against sequential)', unless(hasGxx, 'needs g++ (C++17)'), () => {
  it('compiles test_tree.cc + tree.cc with the GDT and HOG cores and exits with code 0', () => {
    expect(compileAndRun('test_tree', ['pose/test_tree.cc', 'pose/tree.cc', 'gdt/gdt.cc', 'hog/hog.cc'])).toMatch(/all \d+ checks passed/);
  });
});
