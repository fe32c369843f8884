/**
 * Max-flow benchmark: the native Boykov-Kolmogorov solver (src/native/maxflow.ts over native/maxflow)
 * side by side with the pure TypeScript Dinic reference of the tests, with the addon of an earlier
 * commit (--baseline), tree reuse against fresh solves, small graphs through the JS API, page faults
 * per solve, the batch API on 1 and 2 threads, and the DIMACS path of `gapbcfw maxflow`.
 *
 *   npx tsx scripts/bench/maxflow.ts [--quick] [--baseline BASE/build/Release/gapbcfw.node] [--horse DIR] [--only S,S]
 *
 * --only runs the named sections alone (pageFaults, nativeVsTsDinic, grids, superpixels, smallGraphs, batch,
 * dimacs).
 *
 * Prints one JSON object to stdout (progress on stderr). Times are medians of process CPU time in
 * milliseconds (us where named so), except the batch section's wall times and the small graphs' minima of
 * wall time over the rounds (calls of microseconds: run them on an idle machine); `ratio` and `speedup` fields
 * are (other time) / (this time), > 1 meaning this build is faster.
 * With --baseline, every comparison runs both addons in the same process, alternating repetitions. The
 * baseline may be the addon of a commit before issue 22, driven through its positional bindings behind a
 * wrapper that does what its TypeScript layer did (an object with the capacity type settled, then the
 * native call), or of a later one, which takes graph objects like this build. Build it from that commit,
 * e.g. `mkdir /tmp/base && git archive main | tar -x -C /tmp/base && cd /tmp/base &&
 * ln -s $OLDPWD/node_modules . && npx cmake-js compile`. --horse DIR adds the superpixel graphs of a
 * prepared horse set (`gapbcfw prepare-horse`): its training images' loss-augmented cuts at a w from a
 * few BCFW passes.
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
 * Counters (augmentations, orphans, adoptions) are those of this build's fresh solve. The effect of each
 * tree-depth refinement alone is measured natively: native/maxflow/bench_maxflow.cc.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { MaxflowBatch, MaxflowGraph, maxflow, maxflowBatch, readDimacsMaxflow, type CapacityType, type MaxflowGraphSpec } from '../../src/native/maxflow.js';
import { HorseDataset } from '../../src/data/horse.js';
import { modelProblem } from '../../src/engine/problem.js';
import { SegmentationModel } from '../../src/models/segmentation.js';
import { bcfw } from '../../src/solvers/bcfw.js';
import { gridGraph, referenceMaxflow } from '../../test/helpers/maxflow-ref.js';
import { uniform } from '../../test/helpers/random.js';

const { values } = parseArgs({ options: { quick: { type: 'boolean' }, baseline: { type: 'string' }, horse: { type: 'string' }, only: { type: 'string' } } });
const quick = values.quick === true;
const log = (s: string) => process.stderr.write(`${s}\n`);
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const r4 = (x: number): number => Number(x.toPrecision(4));
/**
 * Process CPU time in ms (user + system). Every single-threaded timing uses it: on a machine shared with
 * other jobs it is much steadier than wall time. The batch section (threads) uses wall time.
 */
const clock = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

// ---------------------------------------------------------------------------------------------
// The baseline addon (an earlier commit's positional bindings), wrapped as its TypeScript layer was.

interface BaselineGraph {
  solve(): number;
  segments(out: Uint8Array): void;
  setTerminalCaps(nodes: Int32Array | null, src: Int32Array | Float64Array, sink: Int32Array | Float64Array): void;
  dispose(): void;
}
interface BaselineAddon {
  MaxflowGraph: new (...args: unknown[]) => BaselineGraph;
  maxflowSolve(...args: unknown[]): number;
  maxflowBatchSync?(graphs: unknown[], threads: number): Float64Array;
  MaxflowBatch?: new (opts: unknown) => { solveSync(opts: { threads: number }): void; dispose(): void };
  maxflowReadDimacs(data: Uint8Array, opts: unknown): { graph: BaselineGraph & { clone(): BaselineGraph }; constant: number; capType: string; numNodes: number };
}
const baseAddon = values.baseline ? (createRequire(import.meta.url)(values.baseline) as BaselineAddon) : undefined;
/** A baseline from issue 22 on takes graph objects (this build's binding); an earlier one positional arguments. */
const baseTakesObjects = baseAddon?.MaxflowBatch !== undefined;

/** The baseline's normalisation (src/native/maxflow.ts before this change): a fresh object, capType settled. */
function baseSpec(s: MaxflowGraphSpec): Required<MaxflowGraphSpec> {
  const capType: CapacityType = s.capType ?? ([s.capFwd, s.capRev, s.sourceCap, s.sinkCap].some((a) => a instanceof Float64Array) ? 'float64' : 'int32');
  return { numNodes: s.numNodes, edgeFrom: s.edgeFrom, edgeTo: s.edgeTo, capFwd: s.capFwd, capRev: s.capRev ?? null, sourceCap: s.sourceCap ?? null, sinkCap: s.sinkCap ?? null, capType };
}
const base = baseAddon && {
  graph(spec: MaxflowGraphSpec): BaselineGraph {
    if (baseTakesObjects) return new baseAddon.MaxflowGraph(spec);
    const s = baseSpec(spec);
    return new baseAddon.MaxflowGraph(s.numNodes, s.edgeFrom, s.edgeTo, s.capFwd, s.capRev, s.sourceCap, s.sinkCap, s.capType);
  },
  oneShot(spec: MaxflowGraphSpec, segments: Uint8Array): number {
    if (baseTakesObjects) return baseAddon.maxflowSolve({ ...spec, segments });
    const s = baseSpec(spec);
    return baseAddon.maxflowSolve(s.numNodes, s.edgeFrom, s.edgeTo, s.capFwd, s.capRev, s.sourceCap, s.sinkCap, s.capType, segments);
  },
  /**
   * The graphs solved together: for a baseline with graph objects a prepared batch that keeps its graphs, as this
   * build's MaxflowBatch does; for an earlier one its only batch call, maxflowBatchSync.
   */
  batch(specs: MaxflowGraphSpec[]): { solve(threads: number): void; dispose(): void } {
    const graphs = specs.map((sp) => ({ ...(baseTakesObjects ? sp : baseSpec(sp)), segments: new Uint8Array(sp.numNodes) }));
    if (!baseTakesObjects) return { solve: (threads) => void baseAddon.maxflowBatchSync!(graphs, threads), dispose: () => {} };
    const b = new baseAddon.MaxflowBatch!({ graphs, flows: new Float64Array(specs.length), retain: true, name: 'baseline' });
    return { solve: (threads) => b.solveSync({ threads }), dispose: () => b.dispose() };
  },
  readDimacs(data: Uint8Array) {
    return baseAddon.maxflowReadDimacs(data, baseTakesObjects ? { capType: 'auto', mergeArcs: true } : 'auto');
  },
};

/**
 * Each function's time per call (us), timed in alternating rounds of `calls` calls: the median of process CPU
 * time, or with `wallMin` the minimum of wall time over the rounds (for calls of microseconds on an idle
 * machine: process CPU time also counts V8's background threads, and a round's minimum is the one least
 * disturbed by them).
 */
function race(fs: (() => void)[], calls: number, rounds: number, wallMin = false): number[] {
  const times: number[][] = fs.map(() => []);
  const now = wallMin ? () => performance.now() : clock;
  for (const f of fs) for (let k = 0; k < Math.min(calls, 50); k++) f(); // warm-up
  for (let r = 0; r < rounds; r++) {
    fs.forEach((f, j) => {
      const t0 = now();
      for (let k = 0; k < calls; k++) f();
      times[j]!.push(((now() - t0) * 1000) / calls);
    });
  }
  return times.map((t) => r4(wallMin ? Math.min(...t) : median(t)));
}

/** Minor page faults per call of f, after `warm` untimed calls. */
function faultsPerCall(f: () => void, calls: number, warm = 20): number {
  for (let k = 0; k < warm; k++) f();
  const before = process.resourceUsage().minorPageFault;
  for (let k = 0; k < calls; k++) f();
  return r4((process.resourceUsage().minorPageFault - before) / calls);
}

function timeIt(fn: () => void, reps: number): number {
  const t: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = clock();
    fn();
    t.push(clock() - t0);
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
      // Build, then fresh solve; with a baseline, both addons alternate (which goes first alternates too).
      const t = { build: [] as number[], solve: [] as number[], baseBuild: [] as number[], baseSolve: [] as number[] };
      let counters = {};
      for (let r = 0; r < reps; r++) {
        const runs = [
          () => {
            const t0 = clock();
            const g = new MaxflowGraph(spec);
            const t1 = clock();
            const f = g.solve();
            t.solve.push(clock() - t1);
            t.build.push(t1 - t0);
            counters = g.counters();
            g.dispose();
            return f;
          },
          ...(base
            ? [
                () => {
                  const t0 = clock();
                  const g = base.graph(spec);
                  const t1 = clock();
                  const f = g.solve();
                  t.baseSolve.push(clock() - t1);
                  t.baseBuild.push(t1 - t0);
                  g.dispose();
                  return f;
                },
              ]
            : []),
        ];
        if (r % 2) runs.reverse();
        const flows = runs.map((run) => run());
        if (flows.some((f) => f !== flows[0])) throw new Error(`flow mismatch with the baseline on ${size}x${size} ${name}: ${flows.join(' vs ')}`);
      }
      const row: Record<string, unknown> = { grid: `${size}x${size}`, smoothness: name, nodes: spec.numNodes, edges: spec.edgeFrom.length, buildMs: r4(median(t.build)), freshSolveMs: r4(median(t.solve)), counters };
      if (base) {
        Object.assign(row, {
          baselineBuildMs: r4(median(t.baseBuild)),
          baselineFreshSolveMs: r4(median(t.baseSolve)),
          solveSpeedup: r4(median(t.baseSolve) / median(t.solve)),
          buildAndSolveSpeedup: r4((median(t.baseBuild) + median(t.baseSolve)) / (median(t.build) + median(t.solve))),
          solveSpeedupRange: [r4(Math.min(...t.baseSolve) / Math.max(...t.solve)), r4(Math.max(...t.baseSolve) / Math.min(...t.solve))],
        });
      }
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
          const t0 = clock();
          g.setTerminalCaps(change.nodes, change.src, change.snk);
          const f = g.solve();
          reuse.push(clock() - t0);
          if (r >= reps) continue; // fresh solves (and the equality check) on the first rounds only
          const h = new MaxflowGraph({ ...spec, sourceCap: src, sinkCap: snk });
          const t1 = clock();
          const f2 = h.solve();
          fresh.push(clock() - t1);
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
    let t0 = clock();
    for (const u of unaries) {
      g.setTerminalCaps(null, u.src, u.snk);
      flowsReuse.push(g.solve());
    }
    const reuseUs = ((clock() - t0) / calls) * 1000;
    const flowsFresh: number[] = [];
    t0 = clock();
    for (const u of unaries) {
      const h = new MaxflowGraph({ ...spec, sourceCap: u.src, sinkCap: u.snk });
      flowsFresh.push(h.solve());
      h.dispose();
    }
    const freshUs = ((clock() - t0) / calls) * 1000;
    let maxDiff = 0;
    for (let i = 0; i < calls; i++) maxDiff = Math.max(maxDiff, Math.abs(flowsReuse[i]! - flowsFresh[i]!) / Math.max(1, flowsFresh[i]!));
    t0 = clock();
    const sub = unaries.slice(0, Math.min(calls, 100));
    for (const u of sub) referenceMaxflow({ ...spec, sourceCap: u.src, sinkCap: u.snk }, 1e-9);
    const refUs = ((clock() - t0) / sub.length) * 1000;
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
    let first: number[] | undefined;
    for (const threads of [1, 2]) {
      await maxflowBatch(specs.slice(0, 4), { threads }); // warm-up
      const t: number[] = [];
      for (let r = 0; r < 3; r++) {
        const t0 = performance.now();
        const res = await maxflowBatch(specs, { threads });
        t.push(performance.now() - t0);
        const flows = res.map((x) => x.flow);
        if (first === undefined) first = flows;
        else if (flows.some((f, i) => f !== first![i])) throw new Error(`batch ${name}: flows differ between runs`);
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
// 5. Small graphs through the JS API (the segmentation oracle's size), against the baseline.

/** Wall time (us, minimum over rounds of the mean) of the solve alone, each on a graph built just before it (as in use). */
function solveOnlyUs(build: () => { solve(): number; dispose(): void }, count: number, rounds: number): number {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    let sum = 0;
    for (let k = 0; k < count; k++) {
      const g = build();
      const t0 = performance.now();
      g.solve();
      sum += performance.now() - t0;
      g.dispose();
    }
    best = Math.min(best, (sum * 1000) / count);
  }
  return r4(best);
}

function smallGraph(name: string, spec: MaxflowGraphSpec): Record<string, unknown> {
  const calls = quick ? 500 : 3000;
  const rounds = quick ? 5 : 11;
  const seg = new Uint8Array(spec.numNodes);
  const fs: (() => void)[] = [
    () => {
      const g = new MaxflowGraph(spec);
      g.solve();
      g.dispose();
    },
    () => new MaxflowGraph(spec).solve(),
    () => maxflow(spec, { segments: seg }),
  ];
  if (base) {
    fs.push(() => {
      const g = base.graph(spec);
      g.solve();
      g.dispose();
    });
    fs.push(() => base.graph(spec).solve());
    fs.push(() => base.oneShot(spec, seg));
  }
  const [ctorSolve, ctorSolveGc, oneShot, bCtorSolve, bCtorSolveGc, bOneShot] = race(fs, calls, rounds, true);
  const row: Record<string, unknown> = {
    graph: name, nodes: spec.numNodes, edges: spec.edgeFrom.length,
    ctorSolveDisposeUs: ctorSolve, ctorSolveUs: ctorSolveGc, oneShotUs: oneShot,
    solveOnlyUs: solveOnlyUs(() => new MaxflowGraph(spec), 500, rounds),
  };
  if (base) {
    Object.assign(row, {
      baselineCtorSolveDisposeUs: bCtorSolve, baselineCtorSolveUs: bCtorSolveGc, baselineOneShotUs: bOneShot,
      baselineSolveOnlyUs: solveOnlyUs(() => base.graph(spec), 500, rounds),
      ctorSolveSpeedup: r4(bCtorSolve! / ctorSolve!), oneShotSpeedup: r4(bOneShot! / oneShot!),
    });
  }
  log(`small graph ${name}: ${JSON.stringify(row)}`);
  return row;
}

/** The loss-augmented cuts of a prepared horse set's training images at a w from a few BCFW passes. */
function horseGraphs(dir: string): MaxflowGraphSpec[] {
  const ds = new HorseDataset(dir);
  const { xs, ys } = ds.load('train', quick ? 20 : 200);
  const model = new SegmentationModel({ dUnary: ds.meta.dUnary, dPairwise: ds.meta.dPairwise });
  const w = bcfw(modelProblem(model, xs, ys), { lambda: 10, maxPasses: 3, gapCheck: 3 }).w;
  return xs.map((x, i) => model.cutGraph(model.cutPotentials(w, x, ys[i]!), x));
}

function smallGraphs(): Record<string, unknown> {
  const rows = [smallGraph('superpixel-like n=300', superpixelGraph(uniform(300), 300))];
  const res: Record<string, unknown> = { rows };
  if (values.horse !== undefined) {
    const specs = horseGraphs(values.horse);
    const big = specs.reduce((a, b) => (b.numNodes > a.numNodes ? b : a));
    rows.push(smallGraph(`horse ${values.horse}: largest training graph`, big));
    // Every training graph once per pass: new graph + solve, and the oracle's batched pass (1 thread).
    const batch = new MaxflowBatch(specs);
    const fs: (() => void)[] = [
      () => {
        for (const sp of specs) {
          const g = new MaxflowGraph(sp);
          g.solve();
          g.dispose();
        }
      },
      () => batch.solveSync({ threads: 1 }),
    ];
    const baseBatch = base?.batch(specs);
    if (base) {
      fs.push(() => {
        for (const sp of specs) {
          const g = base.graph(sp);
          g.solve();
          g.dispose();
        }
      });
      fs.push(() => baseBatch!.solve(1));
    }
    const [loop, prepared, bLoop, bBatch] = race(fs, 3, quick ? 5 : 9, true).map((us) => r4(us / specs.length));
    batch.dispose();
    baseBatch?.dispose();
    const nodes = specs.map((sp) => sp.numNodes);
    res.horse = {
      graphs: specs.length, meanNodes: r4(nodes.reduce((a, b) => a + b, 0) / nodes.length), meanEdges: r4(specs.reduce((a, sp) => a + sp.edgeFrom.length, 0) / specs.length),
      ctorSolveUsPerGraph: loop, preparedBatchUsPerGraph: prepared,
      ...(base ? { baselineCtorSolveUsPerGraph: bLoop, baselineBatchUsPerGraph: bBatch, ctorSolveSpeedup: r4(bLoop! / loop!), batchSpeedup: r4(bBatch! / prepared!) } : {}),
    };
    log(`horse graphs: ${JSON.stringify(res.horse)}`);
  }
  return res;
}

// ---------------------------------------------------------------------------------------------
// 6. Minor page faults per solve in steady state (process.resourceUsage), against the baseline. Run first
// (see the end of the script).

function pageFaults(): Record<string, unknown>[] {
  const size = 256;
  const spec = gridGraph(uniform(11), size, size, 5);
  const patch = PERTURBATIONS[0]!;
  const rnd = uniform(12);
  const rows: Record<string, unknown>[] = [];
  const calls = quick ? 20 : 50;
  const row = (what: string, f: () => void, b?: () => void) => {
    const r: Record<string, unknown> = { what, faultsPerCall: faultsPerCall(f, calls) };
    if (b) r.baselineFaultsPerCall = faultsPerCall(b, calls);
    rows.push(r);
    log(`page faults, ${what}: ${JSON.stringify(r)}`);
  };
  // The solve of a freshly built graph alone (the build is not counted).
  const solveOnly = (build: () => { solve(): number; dispose(): void }) => () => {
    const g = build();
    const before = process.resourceUsage().minorPageFault;
    g.solve();
    solveFaults += process.resourceUsage().minorPageFault - before;
    g.dispose();
  };
  let solveFaults = 0;
  const counted = (f: () => void) => () => {
    solveFaults = 0;
    for (let k = 0; k < 20; k++) f();
    solveFaults = 0;
    for (let k = 0; k < calls; k++) f();
    return r4(solveFaults / calls);
  };
  const fresh = counted(solveOnly(() => new MaxflowGraph(spec)))();
  const baseFresh = base ? counted(solveOnly(() => base.graph(spec)))() : undefined;
  rows.push({ what: `grid ${size}x${size} weak (${spec.edgeFrom.length} edges): solve of a fresh graph (build not counted)`, faultsPerCall: fresh, ...(base ? { baselineFaultsPerCall: baseFresh } : {}) });
  log(`page faults: ${JSON.stringify(rows.at(-1))}`);
  row(`grid ${size}x${size} weak: new graph + solve + dispose`, () => {
    const g = new MaxflowGraph(spec);
    g.solve();
    g.dispose();
  }, base && (() => {
    const g = base.graph(spec);
    g.solve();
    g.dispose();
  }));
  const seg = new Uint8Array(spec.numNodes);
  row(`grid ${size}x${size} weak: one-shot maxflow()`, () => maxflow(spec, { segments: seg }), base && (() => base.oneShot(spec, seg)));
  const src = Int32Array.from(spec.sourceCap);
  const snk = Int32Array.from(spec.sinkCap);
  const g = new MaxflowGraph(spec);
  g.solve();
  const bg = base?.graph(spec);
  bg?.solve();
  // The patches are drawn beforehand, so that the loop allocates nothing in JS.
  const patches = Array.from({ length: 64 }, () => patch.apply(rnd, size, size, src, snk));
  let k = 0;
  let kb = 0;
  row(`grid ${size}x${size} weak: reuse (32x32 patch of new unaries, setTerminalCaps + solve)`, () => {
    const c = patches[k++ % patches.length]!;
    g.setTerminalCaps(c.nodes, c.src, c.snk);
    g.solve();
  }, bg && (() => {
    const c = patches[kb++ % patches.length]!;
    bg.setTerminalCaps(c.nodes, c.src, c.snk);
    bg.solve();
  }));
  g.dispose();
  bg?.dispose();
  const specs = Array.from({ length: 200 }, (_, i) => superpixelGraph(uniform(700 + i), 300));
  const prepared = new MaxflowBatch(specs);
  const baseBatch = base?.batch(specs);
  row('200 superpixel-like graphs n=300: prepared MaxflowBatch.solveSync (baseline: its batch)', () => prepared.solveSync(), baseBatch && (() => baseBatch.solve(1)));
  prepared.dispose();
  baseBatch?.dispose();
  return rows;
}

// ---------------------------------------------------------------------------------------------
// 7. DIMACS: a generated instance written to a file and read back as `gapbcfw maxflow` does.

function dimacs(): Record<string, unknown> {
  const size = quick ? 256 : 1024;
  const spec = gridGraph(uniform(77), size, size, 50);
  const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-bench-'));
  try {
    const file = join(dir, `grid${size}.max`);
    const built = new MaxflowGraph(spec);
    const text = built.toDimacs();
    built.dispose();
    writeFileSync(file, text);
    const reps = quick ? 3 : 2;
    const t = { read: [] as number[], solve: [] as number[], baseRead: [] as number[], baseSolve: [] as number[] };
    let info: Record<string, unknown> = {};
    for (let r = 0; r < reps; r++) {
      const runs = [
        () => {
          const t0 = clock();
          const p = readDimacsMaxflow(file);
          t.read.push(clock() - t0);
          const t1 = clock();
          const f = p.constant + p.graph.solve();
          t.solve.push(clock() - t1);
          info = { nodes: p.numNodes, edges: p.graph.numEdges, capType: p.capType, counters: p.graph.counters() };
          p.graph.dispose();
          return f;
        },
        ...(baseAddon
          ? [
              () => {
                const t0 = clock();
                const p = base!.readDimacs(readFileSync(file));
                t.baseRead.push(clock() - t0);
                const t1 = clock();
                const f = p.constant + p.graph.solve();
                t.baseSolve.push(clock() - t1);
                p.graph.dispose();
                return f;
              },
            ]
          : []),
      ];
      if (r % 2) runs.reverse();
      const flows = runs.map((run) => run());
      if (flows.some((f) => f !== flows[0])) throw new Error(`DIMACS flow mismatch with the baseline: ${flows.join(' vs ')}`);
    }
    const res: Record<string, unknown> = {
      instance: `grid ${size}x${size} strong (written by toDimacs)`, bytes: text.length, ...info,
      readMs: r4(median(t.read)), solveMs: r4(median(t.solve)),
      command: 'the same read + solve as `npx gapbcfw maxflow FILE.max --json` (readMs: file to graph; solveMs: the solve alone)',
    };
    if (baseAddon) {
      Object.assign(res, {
        baselineReadMs: r4(median(t.baseRead)), baselineSolveMs: r4(median(t.baseSolve)),
        readSpeedup: r4(median(t.baseRead) / median(t.read)), solveSpeedup: r4(median(t.baseSolve) / median(t.solve)),
        totalSpeedup: r4((median(t.baseRead) + median(t.baseSolve)) / (median(t.read) + median(t.solve))),
      });
    }
    log(`dimacs: ${JSON.stringify(res)}`);
    return res;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const out: Record<string, unknown> = {
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, loadavgAtStart: loadavg().map((x) => r4(x)) },
  baseline: values.baseline ?? null,
  note: 'process CPU times in ms (median; us where named; the batch section in wall time); ratio = other / native; speedup = baseline / this build; reuse speed-up = fresh solve / (setTerminalCaps + reusing solve)',
};
// Page faults first: while the process is young. (glibc raises its mmap threshold after freeing large
// blocks, up to 32 MiB, so a build that frees and re-allocates graph memory faults less once a larger
// graph has come and gone; reused memory does not depend on that history.)
const sections: Record<string, () => unknown> = {
  pageFaults, nativeVsTsDinic: vsReference, grids, superpixels, smallGraphs, batch, dimacs,
};
const only = values.only?.split(',');
const unknownSection = only?.find((name) => !(name in sections));
if (unknownSection !== undefined) throw new Error(`--only: no section '${unknownSection}' (${Object.keys(sections).join(', ')})`);
for (const [name, run] of Object.entries(sections)) if (only === undefined || only.includes(name)) out[name] = await run();
out.loadavgAtEnd = loadavg().map((x) => r4(x));
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
