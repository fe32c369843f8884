/**
 * Compiles the plain C++ cores of native/gdt, native/pose, native/graph and native/solver with their standalone test programs (no
 * Node headers, no addon) and runs them: this keeps those cores buildable and testable on their own.
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

describe('native/solver standalone C++ test (PRNG, sum tree, exact block solve against brute force, sparse blocks)', unless(hasGxx, 'needs g++ (the standalone C++ tests build without Node)'), () => {
  it('compiles test_solver.cc with the solver and scoring cores and exits with code 0', () => {
    const solver = ['bcfw_loop.cc', 'block_store.cc', 'block_update.cc', 'chain_blocks.cc', 'exact.cc', 'multiclass_blocks.cc', 'simplex.cc'].map((f) => `solver/${f}`);
    expect(compileAndRun('test_solver', ['solver/test_solver.cc', ...solver, 'scoring/batch.cc', 'scoring/chain.cc', 'scoring/chain_decode.cc', 'scoring/rows.cc'])).toMatch(/all \d+ checks passed/);
  });
});

describe('native/graph standalone C++ test (MRF routines against brute force)', unless(hasGxx, 'needs g++ (the standalone C++ tests build without Node)'), () => {
  it('compiles test_graph.cc with the graph and max-flow cores and exits with code 0', () => {
    expect(compileAndRun('test_graph', ['graph/test_graph.cc', 'graph/mrf.cc', 'graph/cuts.cc', 'graph/lp.cc', 'maxflow/flow_graph.cc'])).toMatch(/all \d+ checks passed/);
  });
});
