import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './helpers/capture.js';
import { FormatError, InputError } from '../src/core/errors.js';
import {
  MaxflowBatch,
  MaxflowGraph,
  maxflow,
  maxflowBatch,
  maxflowBatchSync,
  parseDimacsMaxflow,
  readDimacsMaxflow,
  writeDimacsMaxflow,
  type MaxflowGraphSpec,
} from '../src/native/maxflow.js';
import { cutCapacity, gridGraph, randomGraph, referenceMaxflow, type Family } from './helpers/maxflow-ref.js';
import { uniform } from './helpers/random.js';

const FAMILIES: Family[] = ['sparse', 'dense', 'grid', 'zeros', 'huge'];
const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-maxflow-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Copies a spec's capacity arrays into another typed-array type. */
function asType(spec: ReturnType<typeof randomGraph>, C: Int32ArrayConstructor | Float64ArrayConstructor): MaxflowGraphSpec {
  return { ...spec, capFwd: C.from(spec.capFwd), capRev: C.from(spec.capRev), sourceCap: C.from(spec.sourceCap), sinkCap: C.from(spec.sinkCap) };
}

describe('max-flow vs an independent Dinic reference', () => {
  it('random integer graphs (sparse, dense, grid, zero and huge capacities): equal flows, the same minimal cut, cut capacity = flow', () => {
    const rnd = uniform(11);
    for (let it = 0; it < 250; it++) {
      const family = FAMILIES[it % FAMILIES.length]!;
      const spec = randomGraph(rnd, family);
      const ref = referenceMaxflow(spec);
      const capType = family === 'huge' && it % 2 ? 'int64' : 'int32';
      const r = maxflow({ ...spec, capType });
      expect(r.flow, `${family} #${it}`).toBe(ref.flow);
      expect(cutCapacity(spec, r.segments)).toBe(r.flow);
      // The native solver reports the nodes reachable from s in the residual graph: the unique
      // inclusion-minimal minimum cut, so it must equal the reference's.
      expect(Array.from(r.segments), `${family} #${it}`).toEqual(Array.from(ref.segments));
    }
  });

  it('random double graphs: equal flows within rounding, cut capacity = flow', () => {
    const rnd = uniform(12);
    for (let it = 0; it < 150; it++) {
      const family = FAMILIES[it % FAMILIES.length]!;
      const spec = randomGraph(rnd, family, { float: true, maxCap: family === 'huge' ? 1e9 : 10 });
      const ref = referenceMaxflow(spec, 1e-9 * (family === 'huge' ? 1e9 : 10));
      const r = maxflow(spec);
      const tol = 1e-9 * Math.max(1, ref.flow);
      expect(Math.abs(r.flow - ref.flow), `${family} #${it}`).toBeLessThanOrEqual(tol);
      expect(Math.abs(cutCapacity(spec, r.segments) - r.flow)).toBeLessThanOrEqual(tol);
    }
  });

  it('int32, int64 and float64 solvers agree, whatever the typed-array kind of the capacities', () => {
    const rnd = uniform(13);
    for (let it = 0; it < 40; it++) {
      const spec = randomGraph(rnd, FAMILIES[it % 4]!);
      const flows = [
        maxflow({ ...asType(spec, Int32Array), capType: 'int32' }).flow,
        maxflow({ ...asType(spec, Float64Array), capType: 'int32' }).flow,
        maxflow({ ...asType(spec, Int32Array), capType: 'int64' }).flow,
        maxflow({ ...asType(spec, Int32Array), capType: 'float64' }).flow,
        new MaxflowGraph(asType(spec, Float64Array)).solve(),
      ];
      expect(new Set(flows).size, `#${it}: ${flows}`).toBe(1);
    }
  });

  it('float64 hard constraints (1e20 capacities) leave the unit-scale arcs exact: flow and cut as with int64', () => {
    // Random unit-scale graphs with node 0 pinned to the source and node n-1 to the sink by a "hard"
    // terminal capacity: 1e20 in float64 against 2^40 in exact int64 (neither can be saturated).
    const rnd = uniform(29);
    for (let it = 0; it < 30; it++) {
      const spec = asType(randomGraph(rnd, FAMILIES[it % 4]!), Float64Array);
      const n = spec.numNodes;
      if (n < 2) continue;
      const pin = (huge: number) => {
        const sourceCap = Float64Array.from(spec.sourceCap ?? new Float64Array(n));
        const sinkCap = Float64Array.from(spec.sinkCap ?? new Float64Array(n));
        sourceCap[0] = huge;
        sinkCap[n - 1] = huge;
        return { ...spec, sourceCap, sinkCap };
      };
      const exact = maxflow({ ...pin(2 ** 40), capType: 'int64' });
      const float = maxflow({ ...pin(1e20), capType: 'float64' });
      expect(Array.from(float.segments), `#${it}`).toEqual(Array.from(exact.segments));
      expect(float.flow, `#${it}`).toBeCloseTo(exact.flow, 6);
    }
  });

  it('the empty graph and graphs without edges', () => {
    expect(maxflow({ numNodes: 0, edgeFrom: new Int32Array(0), edgeTo: new Int32Array(0), capFwd: new Int32Array(0) })).toEqual({ flow: 0, segments: new Uint8Array(0) });
    const r = maxflow({ numNodes: 3, edgeFrom: new Int32Array(0), edgeTo: new Int32Array(0), capFwd: new Int32Array(0), sourceCap: Int32Array.of(2, 0, 5), sinkCap: Int32Array.of(3, 4, 1) });
    expect(r.flow).toBe(2 + 0 + 1);
    expect(Array.from(r.segments)).toEqual([1, 1, 0]);
  });
});

describe('reuse after capacity changes (dynamic graph cuts)', () => {
  it('re-solves after random terminal and edge changes equal fresh solves (flow and cut)', () => {
    const rnd = uniform(21);
    for (let it = 0; it < 60; it++) {
      const family = FAMILIES[it % FAMILIES.length]!;
      const spec = randomGraph(rnd, family);
      const capType = family === 'huge' ? 'int64' : 'int32';
      const g = new MaxflowGraph({ ...spec, capType });
      g.solve();
      const cur = { ...spec, sourceCap: Float64Array.from(spec.sourceCap), sinkCap: Float64Array.from(spec.sinkCap), capFwd: Float64Array.from(spec.capFwd), capRev: Float64Array.from(spec.capRev) };
      const maxCap = family === 'huge' ? 1e9 : 20;
      for (let round = 0; round < 6; round++) {
        const k = 1 + Math.floor(rnd() * Math.max(1, spec.numNodes / 3));
        const nodes = Int32Array.from({ length: k }, () => Math.floor(rnd() * spec.numNodes));
        const src = Int32Array.from({ length: k }, () => Math.floor(rnd() * maxCap));
        const snk = Int32Array.from({ length: k }, () => Math.floor(rnd() * maxCap));
        const add = round % 3 === 2;
        if (add) g.addTerminalCaps(nodes, src, snk);
        else g.setTerminalCaps(nodes, src, snk);
        for (let j = 0; j < k; j++) {
          cur.sourceCap[nodes[j]!] = (add ? cur.sourceCap[nodes[j]!]! : 0) + src[j]!;
          cur.sinkCap[nodes[j]!] = (add ? cur.sinkCap[nodes[j]!]! : 0) + snk[j]!;
        }
        const m = spec.edgeFrom.length;
        if (m > 0 && round % 2 === 1) {
          const ke = 1 + Math.floor(rnd() * Math.max(1, m / 4));
          const edges = Int32Array.from({ length: ke }, () => Math.floor(rnd() * m));
          const f = Int32Array.from({ length: ke }, () => Math.floor(rnd() * maxCap));
          const r = Int32Array.from({ length: ke }, () => Math.floor(rnd() * maxCap));
          g.setEdgeCaps(edges, f, r);
          for (let j = 0; j < ke; j++) {
            cur.capFwd[edges[j]!] = f[j]!;
            cur.capRev[edges[j]!] = r[j]!;
          }
        }
        expect(g.solved).toBe(false);
        const reused = g.solve();
        const fresh = maxflow({ ...cur, capType });
        expect(reused, `${family} #${it} round ${round}`).toBe(fresh.flow);
        expect(reused).toBe(referenceMaxflow(cur).flow);
        expect(Array.from(g.segments())).toEqual(Array.from(fresh.segments));
      }
    }
  });

  it('replacing all unaries of a grid (the segmentation oracle) and clone() keep exact results', () => {
    const rnd = uniform(22);
    const spec = gridGraph(rnd, 30, 20, 7);
    const g = new MaxflowGraph(spec);
    expect(g.solve()).toBe(referenceMaxflow(spec).flow);
    for (let round = 0; round < 5; round++) {
      const next = gridGraph(rnd, 30, 20, 7);
      g.setTerminalCaps(null, next.sourceCap, next.sinkCap);
      const copy = g.clone();
      const f = g.solve();
      expect(f).toBe(maxflow(next).flow);
      expect(copy.solve()).toBe(f); // the copy carries the same pending changes
    }
  });

  it('residuals are consistent with the flow after a fresh solve', () => {
    const spec = randomGraph(uniform(23), 'sparse');
    const g = new MaxflowGraph(spec);
    const flow = g.solve();
    const r = g.residuals();
    let out = 0;
    for (let i = 0; i < spec.numNodes; i++) out += spec.sourceCap[i]! - r.source[i]!;
    let into = 0;
    for (let i = 0; i < spec.numNodes; i++) into += spec.sinkCap[i]! - r.sink[i]!;
    // Flow through terminal arcs (minus the part pushed straight s->i->t, counted on both sides).
    expect(out).toBe(into);
    expect(out).toBeGreaterThanOrEqual(flow);
    for (let e = 0; e < spec.edgeFrom.length; e++) expect(r.fwd[e]! + r.rev[e]!).toBe(spec.capFwd[e]! + spec.capRev[e]!);
  });
});

describe('batch solving on native threads', () => {
  const rnd = uniform(31);
  const specs = Array.from({ length: 40 }, (_, i) => (i % 4 === 3 ? gridGraph(rnd, 40, 40, 5) : randomGraph(rnd, FAMILIES[i % FAMILIES.length]!, { float: i % 2 === 1 })));

  it('equals sequential solves, on 1 and 2 threads', async () => {
    const seq = specs.map((s) => maxflow(s));
    for (const threads of [1, 2]) {
      const batch = await maxflowBatch(specs, { threads });
      expect(batch.map((r) => r.flow)).toEqual(seq.map((r) => r.flow));
      for (let i = 0; i < specs.length; i++) expect(Array.from(batch[i]!.segments)).toEqual(Array.from(seq[i]!.segments));
    }
    for (const threads of [1, 2]) {
      const sync = maxflowBatchSync(specs, { threads });
      expect(sync.map((r) => r.flow)).toEqual(seq.map((r) => r.flow));
      for (let i = 0; i < specs.length; i++) expect(Array.from(sync[i]!.segments)).toEqual(Array.from(seq[i]!.segments));
    }
    expect(maxflowBatchSync([])).toEqual([]);
    const noCuts = await maxflowBatch(specs, { segments: false });
    expect(noCuts.map((r) => r.flow)).toEqual(seq.map((r) => r.flow));
    expect(await maxflowBatch([])).toEqual([]);
  });

  it('an abort rejects with the signal reason, before or during the work', async () => {
    const pre = new AbortController();
    pre.abort(new Error('stop before'));
    await expect(maxflowBatch(specs, { signal: pre.signal })).rejects.toThrow('stop before');
    const big = Array.from({ length: 300 }, () => gridGraph(rnd, 60, 60, 20));
    const ctl = new AbortController();
    const p = maxflowBatch(big, { threads: 1, signal: ctl.signal });
    setImmediate(() => ctl.abort(new Error('stop during')));
    await expect(p).rejects.toThrow('stop during');
    // The solver is usable afterwards.
    expect((await maxflowBatch(specs.slice(0, 2)))[0]!.flow).toBe(maxflow(specs[0]!).flow);
  });

  it('bad values reject with an InputError naming the graph; bad shapes throw before any work', async () => {
    const bad = { ...specs[1]!, capFwd: Float64Array.from(specs[1]!.capFwd) };
    bad.capFwd[0] = -1;
    await expect(maxflowBatch([specs[0]!, bad])).rejects.toThrow(InputError);
    await expect(maxflowBatch([specs[0]!, bad])).rejects.toThrow(/graphs\[1\]: capFwd\[0\] = -1 is negative/);
    await expect(maxflowBatch([{ ...specs[0]!, edgeTo: new Int32Array(1) }])).rejects.toThrow(/graphs\[0\]: edgeTo has length 1/);
    await expect(maxflowBatch(specs, { threads: 0 })).rejects.toThrow(/threads/);
    expect(() => maxflowBatchSync([specs[0]!, bad])).toThrow(/maxflowBatchSync: graphs\[1\]: capFwd\[0\] = -1 is negative/);
    expect(() => maxflowBatchSync([specs[0]!, bad])).toThrow(InputError);
  });
});

describe('prepared batches, memory reuse and counters', () => {
  it('a prepared MaxflowBatch re-solves its graphs as their capacities change in place: every solve equals one-shot solves', async () => {
    const rnd = uniform(41);
    const specs = Array.from({ length: 24 }, (_, i) => {
      const s = i % 3 === 2 ? gridGraph(rnd, 12, 9, 6) : randomGraph(rnd, FAMILIES[i % 4]!, { float: i % 2 === 1 });
      return { ...s, capFwd: Float64Array.from(s.capFwd), capRev: Float64Array.from(s.capRev), sourceCap: Float64Array.from(s.sourceCap), sinkCap: Float64Array.from(s.sinkCap) };
    });
    const batch = new MaxflowBatch(specs);
    expect(batch.size).toBe(specs.length);
    for (let pass = 0; pass < 4; pass++) {
      // New capacities written into the same arrays (the segmentation oracle's pattern).
      for (const s of specs) {
        for (const a of [s.capFwd, s.capRev, s.sourceCap, s.sinkCap]) for (let k = 0; k < a.length; k++) a[k] = Math.floor(rnd() * 15);
      }
      const items = pass % 2 ? Int32Array.of(5, 1, 5, 20, 0) : undefined; // a repeated item is solved once
      const flows = pass === 3 ? await batch.solve({ threads: 2 }) : batch.solveSync({ items, threads: pass + 1 });
      for (let i = 0; i < specs.length; i++) {
        if (items && !items.includes(i)) continue;
        const ref = maxflow(specs[i]!);
        expect(flows[i], `pass ${pass} graph ${i}`).toBe(ref.flow);
        expect(Array.from(batch.segments(i))).toEqual(Array.from(ref.segments));
        expect(ref.flow).toBe(referenceMaxflow(specs[i]!).flow);
      }
    }
    expect(() => batch.segments(24)).toThrow(InputError);
    expect(() => batch.solveSync({ items: Int32Array.of(24) })).toThrow(/items\[0\] = 24/);
    specs[3]!.sourceCap[0] = -2;
    expect(() => batch.solveSync()).toThrow(/MaxflowBatch: graphs\[3\]: sourceCap\[0\] = -2 is negative/);
    batch.dispose();
    expect(() => batch.solveSync()).toThrow(/disposed/);
  });

  it('a prepared batch refuses arrays that were detached after it was made', () => {
    const spec = gridGraph(uniform(42), 6, 6, 3);
    const owned = { ...spec, sourceCap: Int32Array.from(spec.sourceCap) };
    const batch = new MaxflowBatch([owned]);
    batch.solveSync();
    structuredClone(owned.sourceCap.buffer, { transfer: [owned.sourceCap.buffer] });
    expect(() => batch.solveSync()).toThrow(/detached or moved/);
  });

  it('graphs built after a dispose (reusing its memory) and repeated one-shot solves of changing graphs equal fresh solves', () => {
    const rnd = uniform(43);
    for (let it = 0; it < 60; it++) {
      const family = FAMILIES[it % FAMILIES.length]!;
      const spec = it % 5 === 4 ? gridGraph(rnd, 10 + (it % 7), 8, 9) : randomGraph(rnd, family, { float: it % 3 === 1 });
      const ref = referenceMaxflow(spec, it % 3 === 1 ? 1e-9 * 20 : 0);
      const g = new MaxflowGraph(spec);
      const f = g.solve();
      g.dispose(); // the next graph of this capacity type takes over its memory
      const one = maxflow(spec);
      if (it % 3 === 1) {
        expect(Math.abs(f - ref.flow)).toBeLessThanOrEqual(1e-9 * Math.max(1, ref.flow));
      } else {
        expect(f, `#${it}`).toBe(ref.flow);
        expect(Array.from(one.segments)).toEqual(Array.from(ref.segments));
      }
      expect(one.flow).toBe(f);
    }
  });

  it('counters report augmentations, orphans and adoptions; a reusing solve adds to them', () => {
    // s->0 (3), 0->1->2 (5), 2->t (5): one path saturates s->0; node 0, then its child 1, become orphans and free.
    const g = new MaxflowGraph({ numNodes: 3, edgeFrom: Int32Array.of(0, 1), edgeTo: Int32Array.of(1, 2), capFwd: Int32Array.of(5, 5), sourceCap: Int32Array.of(3, 0, 0), sinkCap: Int32Array.of(0, 0, 5) });
    expect(g.solve()).toBe(3);
    expect(g.counters()).toEqual({ augmentations: 1, orphans: 2, adoptions: 0 });
    g.setTerminalCaps(Int32Array.of(0), Int32Array.of(4), Int32Array.of(0));
    expect(g.solve()).toBe(4);
    expect(g.counters().augmentations).toBe(2);
    const big = new MaxflowGraph(gridGraph(uniform(44), 40, 40, 30));
    big.solve();
    const c = big.counters();
    expect(c.augmentations).toBeGreaterThan(0);
    expect(c.adoptions).toBeLessThanOrEqual(c.orphans);
  });
});

describe('bad input gives clear errors, never a crash', () => {
  const base = (): MaxflowGraphSpec => ({
    numNodes: 3, edgeFrom: Int32Array.of(0, 1), edgeTo: Int32Array.of(1, 2), capFwd: Int32Array.of(1, 2), capRev: Int32Array.of(0, 0),
    sourceCap: Int32Array.of(5, 0, 0), sinkCap: Int32Array.of(0, 0, 5),
  });
  const cases: [string, Partial<MaxflowGraphSpec> | ((s: MaxflowGraphSpec) => MaxflowGraphSpec), RegExp][] = [
    ['negative capacity', { capFwd: Int32Array.of(1, -2) }, /capFwd\[1\] = -2 is negative/],
    ['NaN capacity', { capRev: Float64Array.of(0, NaN) }, /capRev\[1\] is NaN/],
    ['infinite capacity', { sourceCap: Float64Array.of(Infinity, 0, 0) }, /sourceCap\[0\] is Infinity/],
    ['negative sink capacity', { sinkCap: Float64Array.of(0, -0.5, 0) }, /sinkCap\[1\] = -0.5 is negative/],
    ['non-integer for int32', { capFwd: Float64Array.of(1.5, 2), capType: 'int32' }, /capFwd\[0\] = 1.5 is not an integer/],
    ['node id out of range', { edgeTo: Int32Array.of(1, 3) }, /edgeTo\[1\] = 3 is not a node id in 0..2/],
    ['negative node id', { edgeFrom: Int32Array.of(-1, 1) }, /edgeFrom\[0\] = -1 is not a node id/],
    ['self-loop', { edgeTo: Int32Array.of(0, 2) }, /edge 0 is a self-loop/],
    ['length mismatch (edges)', { edgeTo: Int32Array.of(1) }, /edgeTo has length 1, expected 2/],
    ['length mismatch (capacities)', { capFwd: Int32Array.of(1) }, /capFwd has length 1, expected 2/],
    ['length mismatch (terminals)', { sinkCap: Int32Array.of(1) }, /sinkCap has length 1, expected 3/],
    ['wrong array type', { capFwd: new Float32Array(2) as unknown as Int32Array }, /capFwd must be an Int32Array or a Float64Array, got Float32Array/],
    ['wrong edge array type', { edgeFrom: [0, 1] as unknown as Int32Array }, /edgeFrom must be an Int32Array, got Array/],
    ['bad node count', { numNodes: 2.5 }, /numNodes must be an integer/],
    ['bad capType', { capType: 'int8' as 'int32' }, /capType must be/],
    ['int32 overflow', { capFwd: Int32Array.of(2147483647, 2), capRev: Int32Array.of(1, 0) }, /capFwd\[0\] \+ capRev\[0\] overflows the capacity type 'int32'/],
    ['too large for int64', { capFwd: Float64Array.of(2 ** 60, 1), capType: 'int64' }, /exceeds 9007199254740992/],
  ];
  for (const [name, change, message] of cases) {
    it(name, () => {
      const spec = typeof change === 'function' ? change(base()) : { ...base(), ...change };
      expect(() => new MaxflowGraph(spec)).toThrow(InputError);
      expect(() => new MaxflowGraph(spec)).toThrow(message);
      expect(() => maxflow(spec)).toThrow(message);
    });
  }

  it('the setters validate everything and leave the graph unchanged on error', () => {
    const g = new MaxflowGraph(base());
    const flow = g.solve();
    expect(() => g.setTerminalCaps(Int32Array.of(0, 7), Int32Array.of(1, 1), Int32Array.of(0, 0))).toThrow(/nodes\[1\] = 7 is not a node id/);
    expect(() => g.setTerminalCaps(Int32Array.of(0, 1), Int32Array.of(1, -1), Int32Array.of(0, 0))).toThrow(/src\[1\] = -1 is negative/);
    expect(() => g.setTerminalCaps(Int32Array.of(0), Int32Array.of(1, 2), Int32Array.of(0))).toThrow(/src has length 2, expected 1/);
    expect(() => g.setEdgeCaps(Int32Array.of(2), Int32Array.of(1), Int32Array.of(1))).toThrow(/edges\[0\] = 2 is not an edge id in 0..1/);
    expect(() => g.setEdgeCaps(null, Float64Array.of(NaN, 1), Int32Array.of(0, 0))).toThrow(/capFwd\[0\] is NaN/);
    expect(g.solved).toBe(true);
    expect(g.solve()).toBe(flow);
    expect(() => g.setTolerance(1e-9)).toThrow(/only float64 graphs/);
    g.setTerminalCaps(Int32Array.of(0), Int32Array.of(1), Int32Array.of(0));
    expect(() => g.segments()).toThrow(/call solve\(\) first/);
    expect(() => g.segments(new Uint8Array(2))).toThrow(/out has length 2, expected 3/);
    g.dispose();
    g.dispose();
    expect(() => g.solve()).toThrow(/the graph was disposed/);
    expect(() => g.numNodes).toThrow(/the graph was disposed/);
  });
});

describe('DIMACS reader, writer and the gapbcfw maxflow command', () => {
  // The classic 6-node example: max flow 23 (CLRS figure 26.1).
  const clrs = `c CLRS 26.1\np max 6 10\nn 1 s\nn 6 t\na 1 2 16\na 1 3 13\na 2 3 10\na 3 2 4\na 2 4 12\na 4 3 9\na 3 5 14\na 5 4 7\na 4 6 20\na 5 6 4\n`;
  const file = join(dir, 'clrs.max');
  writeFileSync(file, clrs);

  const run = (...args: string[]) => cli('maxflow', ...args);

  it('reads a file, solves it and round-trips through the writer', () => {
    const p = readDimacsMaxflow(file);
    expect(p.capType).toBe('int32'); // every capacity sum fits
    expect(p.numNodes).toBe(6);
    expect([p.source, p.sink]).toEqual([0, 5]);
    expect(p.constant + p.graph.solve()).toBe(23);
    const text = writeDimacsMaxflow(p.graph, { source: p.source, sink: p.sink, constant: p.constant });
    const q = parseDimacsMaxflow(text);
    expect(q.graph.solve()).toBe(23);
    expect(writeDimacsMaxflow(q.graph, { source: q.source, sink: q.sink })).toBe(text);
    // A graph written without placeholders: source n+1, sink n+2.
    const spec = randomGraph(uniform(41), 'sparse');
    const g = new MaxflowGraph(spec);
    const back = parseDimacsMaxflow(g.toDimacs({ constant: 3 }));
    expect(back.numNodes).toBe(spec.numNodes + 2);
    expect(back.constant + back.graph.solve()).toBe(g.solve() + 3);
    // Non-integer capacities switch the reader to float64.
    const f = parseDimacsMaxflow('p max 3 2\nn 1 s\nn 3 t\na 1 2 1.25\na 2 3 0.5\n');
    expect(f.capType).toBe('float64');
    expect(f.graph.solve()).toBe(0.5);
  });

  it('merges the arcs between two nodes into one edge (same flow and cut as one edge per arc) and picks int32 only when every sum fits', () => {
    const rnd = uniform(45);
    for (let it = 0; it < 40; it++) {
      const spec = it % 4 === 3 ? gridGraph(rnd, 9, 7, 11) : randomGraph(rnd, FAMILIES[it % FAMILIES.length]!);
      const text = new MaxflowGraph(spec).toDimacs(); // both directions of an edge as two arcs
      const merged = parseDimacsMaxflow(text);
      const plain = parseDimacsMaxflow(text, { mergeArcs: false });
      expect(merged.graph.numEdges).toBeLessThanOrEqual(plain.graph.numEdges);
      expect(merged.graph.solve(), `#${it}`).toBe(referenceMaxflow(spec).flow);
      expect(plain.graph.solve()).toBe(merged.graph.flow);
      expect(Array.from(merged.graph.segments())).toEqual(Array.from(plain.graph.segments()));
      // int32 exactly when every node's terminal capacities and every node pair's summed arcs fit it.
      const pairSums = new Map<string, number>();
      spec.edgeFrom.forEach((u, e) => {
        const v = spec.edgeTo[e]!;
        const key = u < v ? `${u},${v}` : `${v},${u}`;
        pairSums.set(key, (pairSums.get(key) ?? 0) + spec.capFwd[e]! + spec.capRev[e]!);
      });
      const largest = Math.max(0, ...pairSums.values(), ...spec.sourceCap, ...spec.sinkCap);
      expect(merged.capType, `#${it}`).toBe(largest <= 2147483647 ? 'int32' : 'int64');
    }
    const grid = gridGraph(rnd, 8, 8, 4);
    expect(parseDimacsMaxflow(new MaxflowGraph(grid).toDimacs()).graph.numEdges).toBe(grid.edgeFrom.length);
    const head = 'p max 4 3\nn 1 s\nn 4 t\n';
    expect(parseDimacsMaxflow(`${head}a 1 2 5\na 2 3 7\na 3 4 2\n`).capType).toBe('int32');
    const wide = parseDimacsMaxflow(`${head}a 1 2 5\na 2 3 2000000000\na 3 2 2000000000\n`);
    expect(wide.capType).toBe('int64'); // each arc fits int32, their merged edge does not
    expect(parseDimacsMaxflow(`${head}a 1 2 5\na 2 3 2000000000\na 3 2 2000000000\n`, { mergeArcs: false }).capType).toBe('int32');
    expect(() => parseDimacsMaxflow(`${head}a 1 2 5\na 2 3 2000000000\na 3 2 2000000000\n`, { capType: 'int32' })).toThrow('DIMACS line 6: capacity overflow');
    // A UTF-8 byte order mark before the first line is skipped (bytes and text alike); line numbers stay.
    const plain = parseDimacsMaxflow(`${head}a 1 2 5\na 2 3 7\na 3 4 2\n`);
    for (const bom of [`\ufeff${head}a 1 2 5\na 2 3 7\na 3 4 2\n`, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${head}a 1 2 5\na 2 3 7\na 3 4 2\n`)])]) {
      const r = parseDimacsMaxflow(bom);
      expect([r.numNodes, r.source, r.sink, r.graph.numEdges, r.graph.solve()]).toEqual([plain.numNodes, plain.source, plain.sink, plain.graph.numEdges, plain.graph.solve()]);
    }
    expect(() => parseDimacsMaxflow(`\ufeff${head}a 1 2 -5\n`)).toThrow('DIMACS line 4: negative capacity -5');
  });

  it('malformed files throw a FormatError with the line number', () => {
    expect(() => parseDimacsMaxflow('p max 3 1\nn 1 s\nn 3 t\na 1 2 -3\n')).toThrow(FormatError);
    expect(() => parseDimacsMaxflow('p max 3 1\nn 1 s\nn 3 t\na 1 2 -3\n')).toThrow('DIMACS line 4: negative capacity -3');
    expect(() => parseDimacsMaxflow('p max 3 1\nn 1 s\nn 3 t\na 1 2 x\n')).toThrow('DIMACS line 4: bad capacity');
    expect(() => parseDimacsMaxflow('p max 3 1\nn 1 s\nn 3 t\na 1 2 3.5\n', { capType: 'int64' })).toThrow('DIMACS line 4: bad capacity');
    try {
      parseDimacsMaxflow('c\np max 3 2\nn 1 s\nn 3 t\na 1 2 3\n', { file: 'x.max' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(FormatError);
      expect((e as FormatError).line).toBe(2);
      expect((e as Error).message).toBe('x.max:2: p line declares 2 arcs but the file has 1');
    }
  });

  it('gapbcfw maxflow prints the flow; --json carries flow and timings; --cut writes the source side', async () => {
    const plain = await run(file);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe('flow 23\n');
    // The human summary says which time is which: reading (file to graph) and the solve alone.
    expect(plain.stderr).toMatch(/6 nodes, 5 edges \(int32\); read file and build graph [\d.]+ ms; solve \(max-flow only\) [\d.]+ ms/);
    const cut = join(dir, 'cut.txt');
    const j = await run(`dimacs:${file}`, '--json', '--repeat', '3', '--cut', cut);
    expect(j.code).toBe(0);
    const summary = JSON.parse(j.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(summary).toMatchObject({ command: 'maxflow', flow: 23, nodes: 6, edges: 5, capType: 'int32', repeat: 3 }); // arcs 2->3 and 3->2 merged
    for (const k of ['readMs', 'solveMs', 'solveMsMin', 'seconds']) expect(typeof summary[k]).toBe('number');
    // Min cut of CLRS 26.1: {s, v1, v2, v4} (DIMACS 1, 2, 3, 5).
    expect(readFileSync(cut, 'utf8').trim().split('\n').map(Number).sort()).toEqual([1, 2, 3, 5]);
    expect(summary.sourceSide).toBe(4);
  });

  it('gapbcfw maxflow exits 2 with FILE:LINE on a malformed file, and on bad usage', async () => {
    const bad = join(dir, 'bad.max');
    writeFileSync(bad, 'p max 4 2\nn 1 s\nn 4 t\na 1 2 5\na 2 9 1\n');
    const r = await run(bad);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`gapbcfw: ${bad}:5: arc head 9 out of range 1..4\n`);
    expect((await run(join(dir, 'missing.max'))).code).toBe(2);
    expect((await run(file, '--repeat', '0')).stderr).toMatch(/--repeat must be an integer from 1 to 1e6, got '0'/);
    expect((await run()).code).toBe(2);
    expect((await run(file, '--cap-type', 'int8')).code).toBe(2);
    expect((await run('--help')).stdout).toMatch(/Usage: gapbcfw maxflow/);
  });
});
