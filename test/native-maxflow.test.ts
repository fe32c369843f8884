/**
 * Compiles the plain C++ core of native/maxflow (Boykov-Kolmogorov + Kohli-Torr reuse, DIMACS) with
 * its standalone test program (no Node headers, no addon) and runs it: native/maxflow stays
 * buildable and testable on its own. The program checks FlowGraph against an independent
 * Edmonds-Karp on random graphs and a Dinic on grids (with every combination of the tree-depth
 * refinements), reuse and same-structure rebuilds against fresh solves, that steady-state solves
 * allocate nothing, batches, DIMACS round trips, arc merging, the int32 choice and error lines.
 */
import { describe, expect, it } from 'vitest';
import { compileAndRun, hasGxx } from './helpers/native-program.js';
import { unless } from './helpers/skips.js';

describe('native/maxflow standalone C++ test (g++ -std=c++17 -O2, no Node headers)', unless(hasGxx, 'needs g++ (C++17)'), () => {
  it('compiles test_maxflow.cc with every source of native/maxflow and every check passes', () => {
    const out = compileAndRun('test_maxflow', ['maxflow/test_maxflow.cc', 'maxflow/flow_graph.cc', 'maxflow/any_graph.cc', 'maxflow/batch.cc', 'maxflow/dimacs.cc']);
    expect(out).toMatch(/maxflow tests: \d+ checks, 0 failures/);
  });
});
