/**
 * Max-flow benchmark: the native Boykov-Kolmogorov solver (src/maxflow.ts over native/maxflow)
 * side by side with the pure TypeScript Dinic reference of the tests, tree reuse against fresh
 * solves, the batch API on 1 and 2 threads, and the DIMACS path of `gapbcfw maxflow`.
 * Run with `npx tsx scripts/bench/maxflow.ts [--quick]` after `npx cmake-js compile`; prints one
 * JSON object to stdout (progress on stderr). Times are medians in milliseconds; `ratio` fields
 * are (other time) / (native time), > 1 meaning the native solver is faster.
 *
 * Graphs:
 * - grids: 4-connected W x H, random unaries (source/sink capacities 100 (v-0.2)^2 and
 *   100 (v-0.8)^2 with v uniform), pairwise capacity 5 ("weak") or 50 ("strong"), int32;
 * - superpixel-like: N cells of a lattice joined to their 8 neighbours, each edge kept with
 *   probability 0.7 (irregular degrees), float64 capacities (the segmentation oracle's case, a
 *   few hundred nodes);
 * - reuse: after a solve, either a 32 x 32 patch of unaries is redrawn ("local") or every unary
 *   moves by up to +-5% ("global", as between two oracle calls with a slightly different w);
 *   reuse = setTerminalCaps + solve on the solved graph, fresh = the same capacities solved from
 *   scratch (graph construction timed separately).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MaxflowGraph, maxflowBatch, readDimacsMaxflow, type MaxflowGraphSpec } from '../../src/maxflow.js';
import { gridGraph, referenceMaxflow } from '../../test/helpers/maxflow-ref.js';
import { uniform } from '../../test/helpers/random.js';

const quick = process.argv.includes('--quick');
const log = (s: string) => process.stderr.write(`${s}\n`);
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const r4 = (x: number): number => Number(x.toPrecision(4));

function timeIt(fn: () => void, reps: number): number {
  const t: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    fn();
    t.push(performance.now() - t0);
  }
  return median(t);
}

// ---------------------------------------------------------------------------------------------
// 1. Native BK vs the TypeScript Dinic reference (fresh solves, construction included for both).

function vsReference(): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  const sizes = quick ? [32, 64] : [32, 64, 128, 256];
  for (const size of sizes) {
    for (const [name, smooth] of [['weak', 5], ['strong', 50]] as const) {
      const spec = gridGraph(uniform(size * 7 + smooth), size, size, smooth);
      let nativeFlow = 0;
      let refFlow = 0;
      const reps = size >= 256 ? 3 : 5;
      const nativeMs = timeIt(() => {
        const g = new MaxflowGraph(spec);
        nativeFlow = g.solve();
        g.dispose();
      }, reps * 3);
      const refMs = timeIt(() => (refFlow = referenceMaxflow(spec).flow), reps);
      if (nativeFlow !== refFlow) throw new Error(`flow mismatch on ${size}x${size} ${name}: ${nativeFlow} vs ${refFlow}`);
      rows.push({ grid: `${size}x${size}`, smoothness: name, flow: nativeFlow, nativeMs: r4(nativeMs), tsDinicMs: r4(refMs), ratio: r4(refMs / nativeMs) });
      log(`vs reference ${size}x${size} ${name}: native ${r4(nativeMs)} ms, TS Dinic ${r4(refMs)} ms`);
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// 2. Grids of the issue: fresh solve times and reuse speed-ups.

interface Perturbation {
  name: 'local' | 'global';
  apply(rnd: () => number, w: number, h: number, src: Int32Array, snk: Int32Array): { nodes: Int32Array | null; src: Int32Array; snk: Int32Array };
}

const unary = (v: number): [number, number] => [Math.round(100 * (v - 0.2) * (v - 0.2)), Math.round(100 * (v - 0.8) * (v - 0.8))];

const PERTURBATIONS: Perturbation[] = [
  {
    name: 'local',
    apply(rnd, w, h, src, snk) {
      const x0 = Math.floor(rnd() * Math.max(1, w - 32));
      const y0 = Math.floor(rnd() * Math.max(1, h - 32));
      const nodes: number[] = [];
      for (let y = y0; y < Math.min(h, y0 + 32); y++) for (let x = x0; x < Math.min(w, x0 + 32); x++) nodes.push(y * w + x);
      const s = new Int32Array(nodes.length);
      const t = new Int32Array(nodes.length);
      nodes.forEach((i, k) => {
        [s[k], t[k]] = unary(rnd());
        src[i] = s[k]!;
        snk[i] = t[k]!;
      });
      return { nodes: Int32Array.from(nodes), src: s, snk: t };
    },
  },
  {
    name: 'global',
    apply(rnd, _w, _h, src, snk) {
      for (let i = 0; i < src.length; i++) {
        src[i] = Math.round(src[i]! * (0.95 + 0.1 * rnd()));
        snk[i] = Math.round(snk[i]! * (0.95 + 0.1 * rnd()));
      }
      return { nodes: null, src: Int32Array.from(src), snk: Int32Array.from(snk) };
    },
  },
];

function grids(): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  const sizes = quick ? [256] : [256, 512, 1024];
  for (const size of sizes) {
    for (const [name, smooth] of [['weak', 5], ['strong', 50]] as const) {
      const rnd = uniform(size + smooth);
      const spec = gridGraph(rnd, size, size, smooth);
      const reps = size >= 1024 ? 3 : 5;
      const buildMs = timeIt(() => new MaxflowGraph(spec).dispose(), reps);
      const solveTimes: number[] = [];
      for (let r = 0; r < reps; r++) {
        const g = new MaxflowGraph(spec);
        const t0 = performance.now();
        g.solve();
        solveTimes.push(performance.now() - t0);
        g.dispose();
      }
      const row: Record<string, unknown> = { grid: `${size}x${size}`, smoothness: name, nodes: spec.numNodes, edges: spec.edgeFrom.length, buildMs: r4(buildMs), freshSolveMs: r4(median(solveTimes)) };
      for (const p of PERTURBATIONS) {
        const g = new MaxflowGraph(spec);
        g.solve();
        const src = Int32Array.from(spec.sourceCap);
        const snk = Int32Array.from(spec.sinkCap);
        const reuse: number[] = [];
        const fresh: number[] = [];
        const rounds = p.name === 'local' ? 20 : reps;
        for (let r = 0; r < rounds; r++) {
          const change = p.apply(rnd, size, size, src, snk);
          const t0 = performance.now();
          g.setTerminalCaps(change.nodes, change.src, change.snk);
          const f = g.solve();
          reuse.push(performance.now() - t0);
          if (r >= reps) continue; // fresh solves (and the equality check) on the first rounds only
          const h = new MaxflowGraph({ ...spec, sourceCap: src, sinkCap: snk });
          const t1 = performance.now();
          const f2 = h.solve();
          fresh.push(performance.now() - t1);
          h.dispose();
          if (f !== f2) throw new Error(`reuse mismatch ${size} ${name} ${p.name}: ${f} vs ${f2}`);
        }
        g.dispose();
        row[`${p.name}ReuseMs`] = r4(median(reuse));
        row[`${p.name}FreshMs`] = r4(median(fresh));
        row[`${p.name}ReuseSpeedup`] = r4(median(fresh) / median(reuse));
      }
      rows.push(row);
      log(`grid ${size}x${size} ${name}: ${JSON.stringify(row)}`);
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// 3. Superpixel-like irregular graphs (a few hundred nodes, float64).

function superpixelGraph(rnd: () => number, n: number): MaxflowGraphSpec & { sourceCap: Float64Array; sinkCap: Float64Array } {
  // Superpixels as cells of a w x h lattice (w*h = n) joined to their 8 neighbours, each edge kept
  // with probability 0.7: an irregular planar-like adjacency with degrees 2..8.
  const w = Math.max(1, Math.round(Math.sqrt(n)));
  const h = Math.ceil(n / w);
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = i % w;
    const y = Math.floor(i / w);
    for (const [dx, dy] of [[1, 0], [0, 1], [1, 1], [-1, 1]] as const) {
      const xx = x + dx;
      const yy = y + dy;
      const j = yy * w + xx;
      if (xx >= 0 && xx < w && yy < h && j < n && rnd() < 0.7) (from.push(i), to.push(j));
    }
  }
  const m = from.length;
  const cap = Float64Array.from({ length: m }, () => 0.5 + 2 * rnd());
  const sourceCap = Float64Array.from({ length: n }, () => 5 * rnd());
  const sinkCap = Float64Array.from({ length: n }, () => 5 * rnd());
  return { numNodes: n, edgeFrom: Int32Array.from(from), edgeTo: Int32Array.from(to), capFwd: cap, capRev: Float64Array.from(cap), sourceCap, sinkCap };
}

function superpixels(): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const n of [200, 500]) {
    const rnd = uniform(n);
    const spec = superpixelGraph(rnd, n);
    const calls = quick ? 200 : 1000;
    // The oracle's loop: new unaries (every node moves by up to +-10%) then a solve.
    const unaries = Array.from({ length: calls }, () => ({
      src: Float64Array.from(spec.sourceCap, (x) => x * (0.9 + 0.2 * rnd())),
      snk: Float64Array.from(spec.sinkCap, (x) => x * (0.9 + 0.2 * rnd())),
    }));
    const g = new MaxflowGraph(spec);
    g.solve();
    const flowsReuse: number[] = [];
    let t0 = performance.now();
    for (const u of unaries) {
      g.setTerminalCaps(null, u.src, u.snk);
      flowsReuse.push(g.solve());
    }
    const reuseUs = ((performance.now() - t0) / calls) * 1000;
    const flowsFresh: number[] = [];
    t0 = performance.now();
    for (const u of unaries) {
      const h = new MaxflowGraph({ ...spec, sourceCap: u.src, sinkCap: u.snk });
      flowsFresh.push(h.solve());
      h.dispose();
    }
    const freshUs = ((performance.now() - t0) / calls) * 1000;
    let maxDiff = 0;
    for (let i = 0; i < calls; i++) maxDiff = Math.max(maxDiff, Math.abs(flowsReuse[i]! - flowsFresh[i]!) / Math.max(1, flowsFresh[i]!));
    t0 = performance.now();
    const sub = unaries.slice(0, Math.min(calls, 100));
    for (const u of sub) referenceMaxflow({ ...spec, sourceCap: u.src, sinkCap: u.snk }, 1e-9);
    const refUs = ((performance.now() - t0) / sub.length) * 1000;
    rows.push({
      nodes: n, edges: spec.edgeFrom.length, calls,
      reuseUsPerCall: r4(reuseUs), freshUsPerCall: r4(freshUs), tsDinicUsPerCall: r4(refUs),
      reuseSpeedup: r4(freshUs / reuseUs), tsDinicRatio: r4(refUs / freshUs), maxRelFlowDiff: maxDiff,
    });
    log(`superpixels n=${n}: ${JSON.stringify(rows.at(-1))}`);
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// 4. Batch API on 1 and 2 threads.

async function batch(): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  const cases: [string, MaxflowGraphSpec[]][] = [
    ['64 grids 128x128 strong', Array.from({ length: quick ? 16 : 64 }, (_, i) => gridGraph(uniform(900 + i), 128, 128, 50))],
    ['2000 superpixel graphs n=300', Array.from({ length: quick ? 200 : 2000 }, (_, i) => superpixelGraph(uniform(5000 + i), 300))],
  ];
  for (const [name, specs] of cases) {
    const ms: Record<number, number> = {};
    let base: number[] | undefined;
    for (const threads of [1, 2]) {
      await maxflowBatch(specs.slice(0, 4), { threads }); // warm-up
      const t: number[] = [];
      for (let r = 0; r < 3; r++) {
        const t0 = performance.now();
        const res = await maxflowBatch(specs, { threads });
        t.push(performance.now() - t0);
        const flows = res.map((x) => x.flow);
        if (base === undefined) base = flows;
        else if (flows.some((f, i) => f !== base![i])) throw new Error(`batch ${name}: flows differ between runs`);
      }
      ms[threads] = median(t);
    }
    const t0 = performance.now();
    for (const s of specs) {
      const g = new MaxflowGraph(s);
      g.solve();
      g.dispose();
    }
    const syncMs = performance.now() - t0;
    rows.push({ batch: name, graphs: specs.length, syncLoopMs: r4(syncMs), threads1Ms: r4(ms[1]!), threads2Ms: r4(ms[2]!), speedup2vs1: r4(ms[1]! / ms[2]!) });
    log(`batch ${name}: ${JSON.stringify(rows.at(-1))}`);
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// 5. DIMACS: a generated instance written to a file and read back as `gapbcfw maxflow` does.

function dimacs(): Record<string, unknown> {
  const size = quick ? 256 : 512;
  const spec = gridGraph(uniform(77), size, size, 50);
  const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-bench-'));
  try {
    const file = join(dir, `grid${size}.max`);
    const text = new MaxflowGraph(spec).toDimacs();
    writeFileSync(file, text);
    const t0 = performance.now();
    const p = readDimacsMaxflow(file);
    const readMs = performance.now() - t0;
    const solveMs = timeIt(() => {
      const g = p.graph.clone();
      g.solve();
      g.dispose();
    }, 3);
    return { instance: `grid ${size}x${size} strong (written by toDimacs)`, bytes: text.length, nodes: p.numNodes, capType: p.capType, flow: p.constant + p.graph.solve(), readMs: r4(readMs), solveMs: r4(solveMs), command: 'the same read + solve as `npx gapbcfw maxflow FILE.max --json`' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const out: Record<string, unknown> = {
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, loadavgAtStart: loadavg().map((x) => r4(x)) },
  note: 'times in ms (median); ratio = other / native; reuse speed-up = fresh solve / (setTerminalCaps + reusing solve)',
};
out.nativeVsTsDinic = vsReference();
out.grids = grids();
out.superpixels = superpixels();
out.batch = await batch();
out.dimacs = dimacs();
out.loadavgAtEnd = loadavg().map((x) => r4(x));
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
