/**
 * s-t minimum cut / maximum flow on graphs with terminal capacities: the Boykov-Kolmogorov algorithm
 * (Boykov & Kolmogorov, "An Experimental Comparison of Min-Cut/Max-Flow Algorithms for Energy
 * Minimization in Vision", TPAMI 2004) with Kohli & Torr's reuse of the search trees after capacity
 * changes ("Dynamic Graph Cuts", TPAMI 2007), in C++ (native/maxflow), plus DIMACS max-flow files.
 *
 * Model: nodes `0..numNodes-1` plus two implicit terminals, the source s and the sink t. Node `i`
 * has a source capacity `sourceCap[i]` (arc s->i) and a sink capacity `sinkCap[i]` (arc i->t); edge
 * `e` joins `edgeFrom[e]` and `edgeTo[e]` with capacity `capFwd[e]` from -> to and `capRev[e]`
 * to -> from. The max flow equals the capacity of a minimum cut; {@link MaxflowGraph.segments}
 * returns its source side as the nodes reachable from s in the final residual graph (the unique
 * inclusion-minimal minimum cut): `0` ({@link SOURCE_SIDE}) or `1` ({@link SINK_SIDE}) per node.
 *
 * Capacity types ({@link CapacityType}): `'int32'` (exact, the fastest; a sum `capFwd + capRev`
 * beyond 2^31-1 is refused), `'int64'` (exact, integers up to 2^53 from JS) and `'float64'` (doubles;
 * a residual counts as saturated within 1e-12 times its own arc pair's, or its node's terminal,
 * capacities, so a 1e20 hard constraint leaves unit arcs exact). Capacity
 * arrays may be Int32Array or Float64Array whatever the type; every entry is checked (negative, NaN,
 * Infinity, non-integers for the integer types, out-of-range values), as are node ids, lengths and
 * self-loops: bad input throws an {@link InputError} naming the array and the index, never crashes.
 * Flow values are JS numbers: exact for integer types up to 2^53.
 *
 * The native graph lays out its residual arcs when it is built, so a solve allocates nothing; the
 * one-shot {@link maxflow} builds in a scratch graph kept between calls, and a {@link MaxflowBatch}
 * keeps each of its graphs, for solvers that rebuild the same graphs with new capacities (the
 * segmentation oracle). Two refinements of BK's trees (orphans adopted nearest to the terminal
 * first, growth that re-attaches nodes to shallower parents; native/maxflow/flow_graph.h) cut the
 * orphans of large strongly coupled grids by about 40%, and a fresh solve first saturates the paths
 * s -> u -> v -> t in one scan of the arcs (half the paths of a superpixel cut);
 * {@link MaxflowGraph.counters} reports the work done.
 *
 * @example
 * ```ts
 * const g = new MaxflowGraph({
 *   numNodes: 2, edgeFrom: Int32Array.of(0), edgeTo: Int32Array.of(1), capFwd: Int32Array.of(3),
 *   sourceCap: Int32Array.of(5, 0), sinkCap: Int32Array.of(0, 4),
 * });
 * g.solve();                       // 3
 * g.segments();                    // Uint8Array [0, 1]
 * g.setTerminalCaps(Int32Array.of(1), Int32Array.of(0), Int32Array.of(1));
 * g.solve();                       // 1, reusing the previous flow and search trees
 * ```
 * @module
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { FormatError, GapbcfwError, InputError } from '../core/errors.js';
import { native } from './addon.js';
import { abortSignal, callNative, describe, fromNative } from './is.js';

/** Capacity type of the native solver. */
export type CapacityType = 'int32' | 'int64' | 'float64';

/** Capacities from JS: Int32Array or Float64Array (read without copying). */
export type CapacityArray = Int32Array | Float64Array;

/** Segment of a node on the source side of the minimum cut. */
export const SOURCE_SIDE = 0;
/** Segment of a node on the sink side of the minimum cut. */
export const SINK_SIDE = 1;

/** A graph described by typed arrays. */
export interface MaxflowGraphSpec {
  /** Number of nodes n (integer in [0, 2^31-1]); nodes are `0..n-1`. */
  numNodes: number;
  /** Edge tails, length m, each in `0..n-1`. */
  edgeFrom: Int32Array;
  /** Edge heads, length m, each in `0..n-1` and different from the tail (no self-loops). */
  edgeTo: Int32Array;
  /** Capacity from -> to of each edge (length m, >= 0). */
  capFwd: CapacityArray;
  /** Capacity to -> from of each edge (length m, >= 0); default all zero (directed edges). */
  capRev?: CapacityArray | null;
  /** Capacity of s -> i per node (length n, >= 0); default all zero. */
  sourceCap?: CapacityArray | null;
  /** Capacity of i -> t per node (length n, >= 0); default all zero. */
  sinkCap?: CapacityArray | null;
  /**
   * Capacity type of the solver. Default: `'int32'` when every capacity array given is an
   * Int32Array, `'float64'` otherwise.
   */
  capType?: CapacityType;
}

/** Result of a solve. */
export interface MaxflowResult {
  /** The max-flow value (= the capacity of the minimum cut). */
  flow: number;
  /** {@link SOURCE_SIDE} or {@link SINK_SIDE} per node (the inclusion-minimal minimum cut). */
  segments: Uint8Array;
}

/** Residual capacities of the current flow (see {@link MaxflowGraph.residuals}). */
export interface MaxflowResiduals {
  /** Residual of s -> i per node. */
  source: Float64Array;
  /** Residual of i -> t per node. */
  sink: Float64Array;
  /** Residual from -> to per edge. */
  fwd: Float64Array;
  /** Residual to -> from per edge. */
  rev: Float64Array;
}

/** Work done by a graph's solves (see {@link MaxflowGraph.counters}). */
export interface MaxflowCounters {
  /** Augmenting paths pushed. */
  augmentations: number;
  /** Orphans processed by the adoption stage (nodes whose tree link an augmentation or adoption cut). */
  orphans: number;
  /** Orphans that found a new parent (the others became free). */
  adoptions: number;
}

// ---------------------------------------------------------------------------------------------
// Raw binding (native/binding/maxflow.cc)
// ---------------------------------------------------------------------------------------------

/** A graph as the binding takes it (capType absent: the default of {@link MaxflowGraphSpec.capType}). */
interface NativeGraphSpec extends MaxflowGraphSpec {
  segments?: Uint8Array | null;
}

/** The native graph object. */
interface NativeGraph {
  readonly numNodes: number;
  readonly numEdges: number;
  readonly capType: CapacityType;
  readonly flow: number;
  readonly solved: boolean;
  solve(): number;
  segments(out: Uint8Array): void;
  setTerminalCaps(nodes: Int32Array | null, src: CapacityArray, sink: CapacityArray): void;
  addTerminalCaps(nodes: Int32Array | null, src: CapacityArray, sink: CapacityArray): void;
  setEdgeCaps(edges: Int32Array | null, capFwd: CapacityArray, capRev: CapacityArray): void;
  residuals(out: { source?: Float64Array; sink?: Float64Array; fwd?: Float64Array; rev?: Float64Array }): void;
  tolerance(): number;
  setTolerance(t: number): void;
  counters(): MaxflowCounters;
  clone(): NativeGraph;
  toDimacs(constant: number, source: number, sink: number): string;
  dispose(): void;
}

/** The native prepared batch (see native/binding/maxflow.cc). */
interface NativeBatch {
  readonly size: number;
  solveSync(opts: { items?: Int32Array; count?: number; threads?: number }): void;
  solve(opts: { items?: Int32Array; count?: number; threads?: number }): { promise: Promise<void>; cancel(): void };
  dispose(): void;
}

/** The max-flow part of the addon's exports. */
// The section's functions on the addon object (src/native/addon.ts).
declare module './addon.js' {
  interface NativeBinding extends MaxflowBinding {}
}

export interface MaxflowBinding {
  MaxflowGraph: new (spec: NativeGraphSpec) => NativeGraph;
  MaxflowBatch: new (opts: { graphs: NativeGraphSpec[]; flows: Float64Array; retain: boolean; name: string }) => NativeBatch;
  maxflowSolve(spec: NativeGraphSpec): number;
  maxflowReadDimacs(data: Uint8Array, opts: { capType: 'auto' | CapacityType; mergeArcs: boolean }): {
    graph: NativeGraph; numNodes: number; source: number; sink: number; constant: number; ignoredArcs: number; capType: CapacityType;
  };
}

const binding: MaxflowBinding = native;

/** Waits for a native threaded job; an abort of `signal` cancels it and rejects with the signal's reason. */
async function awaitJob(start: () => { promise: Promise<void>; cancel(): void }, signal: AbortSignal | undefined): Promise<void> {
  const job = callNative(start);
  const onAbort = () => job.cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await job.promise;
  } catch (e) {
    signal?.throwIfAborted();
    throw fromNative(e);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  signal?.throwIfAborted();
}

/** Checks that a spec is an object (the native side checks its fields and values). */
function checkSpec(fn: string, spec: MaxflowGraphSpec): NativeGraphSpec {
  if (typeof spec !== 'object' || spec === null) throw new InputError(`${fn}: the graph must be an object {numNodes, edgeFrom, edgeTo, capFwd, ...}, got ${describe(spec)}`);
  return spec;
}

function nodeCount(spec: NativeGraphSpec): number {
  const n = spec.numNodes;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 2147483647 ? n : 0;
}

function outputSegments(fn: string, n: number, out: Uint8Array | undefined): Uint8Array {
  if (out === undefined) return new Uint8Array(n);
  if (!(out instanceof Uint8Array)) throw new InputError(`${fn}: out must be a Uint8Array, got ${describe(out)}`);
  if (out.length !== n) throw new InputError(`${fn}: out has length ${out.length}, expected ${n}`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

/** Set while wrapping a native graph built in C++ (clone, DIMACS reader). */
let adopting: NativeGraph | undefined;
let handleOf: (g: MaxflowGraph) => NativeGraph;

/**
 * A graph kept in native memory for repeated solves: build it once, then change terminal or edge
 * capacities and call {@link MaxflowGraph.solve} again. Re-solves keep the previous flow, residual
 * graph and search trees and repair only what the changes touched (Kohli & Torr), which is much
 * faster than a fresh solve when few capacities change (the segmentation oracle's case).
 *
 * The typed arrays are read (and copied into the graph) by the constructor and the setters: they
 * can be reused or changed right after each call. Every method is synchronous; for many graphs at
 * once off the main thread, use {@link maxflowBatch}.
 */
export class MaxflowGraph {
  readonly #g: NativeGraph;

  /**
   * Builds the graph; validates every entry.
   *
   * @param spec - nodes, edges and capacities.
   * @throws {@link InputError} on wrong types or lengths, bad node ids, self-loops, negative / NaN /
   *   infinite capacities, non-integers for an integer capacity type, or sums that overflow it.
   */
  constructor(spec: MaxflowGraphSpec) {
    if (adopting !== undefined) {
      this.#g = adopting;
      adopting = undefined;
      return;
    }
    const s = checkSpec('MaxflowGraph', spec);
    this.#g = callNative(() => new binding.MaxflowGraph(s));
  }

  /** Number of nodes. */
  get numNodes(): number {
    return callNative(() => this.#g.numNodes);
  }
  /** Number of edges. */
  get numEdges(): number {
    return callNative(() => this.#g.numEdges);
  }
  /** Capacity type of the solver. */
  get capType(): CapacityType {
    return callNative(() => this.#g.capType);
  }
  /** The value returned by the last {@link MaxflowGraph.solve} (0 before any). */
  get flow(): number {
    return callNative(() => this.#g.flow);
  }
  /** True when {@link MaxflowGraph.solve} ran after the last capacity change. */
  get solved(): boolean {
    return callNative(() => this.#g.solved);
  }

  /**
   * Computes the max flow for the current capacities and returns it. The first call solves from
   * scratch; later calls reuse the previous flow and search trees (the result always equals a
   * fresh solve).
   */
  solve(): number {
    return callNative(() => this.#g.solve());
  }

  /**
   * The minimum cut of the last solve: {@link SOURCE_SIDE} (0) for the nodes reachable from the
   * source in the final residual graph, {@link SINK_SIDE} (1) for the others.
   *
   * @param out - optional preallocated output of length {@link MaxflowGraph.numNodes}.
   * @throws {@link InputError} when the capacities changed since the last solve.
   */
  segments(out?: Uint8Array): Uint8Array {
    const seg = outputSegments('MaxflowGraph.segments', this.numNodes, out);
    if (!this.solved) throw new InputError('MaxflowGraph.segments: the capacities changed since the last solve(); call solve() first');
    callNative(() => this.#g.segments(seg));
    return seg;
  }

  /**
   * Sets the source and sink capacities of some nodes (`nodes[k]` gets `src[k]`, `sink[k]`), or of
   * every node in order when `nodes` is null (then `src` and `sink` have length numNodes). All
   * entries are checked before anything changes. Keeps the flow for the next (reusing) solve.
   *
   * @returns this graph, for chaining.
   */
  setTerminalCaps(nodes: Int32Array | null, src: CapacityArray, sink: CapacityArray): this {
    callNative(() => this.#g.setTerminalCaps(nodes, src, sink));
    return this;
  }

  /** Like {@link MaxflowGraph.setTerminalCaps} but adds to the current capacities. */
  addTerminalCaps(nodes: Int32Array | null, src: CapacityArray, sink: CapacityArray): this {
    callNative(() => this.#g.addTerminalCaps(nodes, src, sink));
    return this;
  }

  /**
   * Sets both capacities of some edges (`edges[k]` gets `capFwd[k]`, `capRev[k]`), or of every
   * edge in order when `edges` is null. Keeps the flow where it still fits (Kohli & Torr).
   *
   * @returns this graph, for chaining.
   */
  setEdgeCaps(edges: Int32Array | null, capFwd: CapacityArray, capRev: CapacityArray): this {
    callNative(() => this.#g.setEdgeCaps(edges, capFwd, capRev));
    return this;
  }

  /**
   * Residual capacities of the current flow. After a reusing solve they are those of an equivalent
   * graph whose two terminal capacities of a node may both exceed the given ones by the same amount
   * (Kohli & Torr's reparametrisation); after a fresh solve they are the plain residuals.
   */
  residuals(): MaxflowResiduals {
    const n = this.numNodes;
    const m = this.numEdges;
    const r = { source: new Float64Array(n), sink: new Float64Array(n), fwd: new Float64Array(m), rev: new Float64Array(m) };
    callNative(() => this.#g.residuals(r));
    return r;
  }

  /**
   * Work done by the solves since the graph was built: augmenting paths, orphans (nodes whose search-tree
   * link was cut) and adoptions (orphans re-attached rather than freed). For profiling; a reusing solve
   * adds to them.
   */
  counters(): MaxflowCounters {
    return callNative(() => this.#g.counters());
  }

  /**
   * The explicit saturation tolerance, else a bound on the default relative thresholds (2e-12 times the
   * largest capacity ever given); 0 for integer types.
   */
  get tolerance(): number {
    return callNative(() => this.#g.tolerance());
  }

  /**
   * Sets an absolute saturation tolerance for a float64 graph (finite, >= 0; 0 = exact comparisons),
   * replacing the default relative thresholds (1e-12 times each arc pair's or node's terminal capacities).
   */
  setTolerance(tolerance: number): this {
    if (typeof tolerance !== 'number') throw new InputError(`MaxflowGraph.setTolerance: tolerance must be a number, got ${describe(tolerance)}`);
    callNative(() => this.#g.setTolerance(tolerance));
    return this;
  }

  /** A deep copy (capacities, flow and search trees). */
  clone(): MaxflowGraph {
    return wrapNative(callNative(() => this.#g.clone()));
  }

  /**
   * Frees the native memory now rather than when the object is garbage collected. Node runs the
   * native finalizers of collected graphs only when the event loop turns, so a synchronous loop
   * that builds many large graphs should dispose of each one (measured: 60 graphs of 512 x 512
   * in a loop peaked at 2.2 GB without it, 0.2 GB when yielding between them). The memory of the last
   * disposed graph of each capacity type (up to 64 MiB) is kept for the next graph built, so a loop of
   * build, solve, dispose allocates nothing once warm. Any later use throws a {@link GapbcfwError}.
   * Idempotent.
   */
  dispose(): void {
    this.#g.dispose();
  }

  /**
   * The graph as a DIMACS max-flow problem (see {@link writeDimacsMaxflow}).
   */
  toDimacs(opts: DimacsWriteOptions = {}): string {
    return writeDimacsMaxflow(this, opts);
  }

  static {
    handleOf = (g) => g.#g;
  }
}

function wrapNative(h: NativeGraph): MaxflowGraph {
  adopting = h;
  try {
    return new MaxflowGraph(undefined as unknown as MaxflowGraphSpec);
  } finally {
    adopting = undefined;
  }
}

/**
 * One-shot max flow and minimum cut of a graph (synchronous; for small and medium graphs or when
 * blocking the event loop is fine). The graph is built in a native scratch graph that is kept from
 * call to call, so repeated one-shot solves allocate no native memory once the largest graph was seen.
 *
 * @param spec - the graph.
 * @param opts.segments - optional preallocated output (length numNodes).
 * @throws {@link InputError} on invalid input (see {@link MaxflowGraph}).
 */
export function maxflow(spec: MaxflowGraphSpec, opts: { segments?: Uint8Array } = {}): MaxflowResult {
  const s = checkSpec('maxflow', spec);
  const segments = outputSegments('maxflow', nodeCount(s), opts.segments);
  const flow = callNative(() => binding.maxflowSolve({ numNodes: s.numNodes, edgeFrom: s.edgeFrom, edgeTo: s.edgeTo, capFwd: s.capFwd, capRev: s.capRev, sourceCap: s.sourceCap, sinkCap: s.sinkCap, capType: s.capType, segments }));
  return { flow, segments };
}

/** Options of {@link MaxflowBatch.solveSync}. */
export interface MaxflowBatchSolveOptions {
  /** Graphs to solve: `items[0 .. count)` (graph indices; one listed twice is solved once); all graphs when absent. */
  items?: Int32Array;
  /** How many entries of `items` (default: all). */
  count?: number;
  /** Native threads (default 1; at most 256). */
  threads?: number;
}

/**
 * A prepared list of graphs solved together on the native thread pool, again and again: the graphs'
 * typed arrays are handed over once and read in place at each solve, so a caller that rewrites the
 * capacities in place (same structure) re-solves without re-sending anything; each graph keeps its
 * native memory between solves (no allocation, no page faults after the first). Every solve starts
 * from scratch, so its results equal one {@link maxflow} call per graph.
 *
 * **Contract:** do not detach, transfer or resize the graphs' arrays while the batch is in use (a solve
 * then throws), and do not write them while an asynchronous {@link MaxflowBatch.solve} runs.
 */
export class MaxflowBatch {
  /** Flow of each graph's last solve (0 before it). */
  readonly flows: Float64Array;
  readonly #segments: Uint8Array[];
  readonly #b: NativeBatch;

  /**
   * @param specs - the graphs (validated at each solve, since their values may change in between).
   * @param opts.segments - compute the minimum cuts (default true).
   * @throws {@link InputError} on wrong types or lengths.
   */
  constructor(specs: readonly MaxflowGraphSpec[], opts: { segments?: boolean } = {}) {
    const parts = newBatch('MaxflowBatch', specs, opts.segments ?? true, true);
    this.#b = parts.native;
    this.flows = parts.flows;
    this.#segments = parts.segments;
  }

  /** Number of graphs. */
  get size(): number {
    return this.#segments.length;
  }

  /** The minimum cut of graph i's last solve ({@link SOURCE_SIDE} / {@link SINK_SIDE} per node); overwritten by the next solve. */
  segments(i: number): Uint8Array {
    const seg = this.#segments[i];
    if (seg === undefined) throw new InputError(`MaxflowBatch.segments: graph index must be an integer in 0..${this.size - 1}, got ${String(i)}`);
    return seg;
  }

  /** Solves the graphs (or `items`) with their current capacities, blocking; returns {@link MaxflowBatch.flows}. */
  solveSync(opts: MaxflowBatchSolveOptions = {}): Float64Array {
    callNative(() => this.#b.solveSync(opts));
    return this.flows;
  }

  /**
   * {@link MaxflowBatch.solveSync} off the main thread. An abort of `signal` stops the threads before
   * their next graph and rejects with the signal's reason.
   */
  async solve(opts: MaxflowBatchSolveOptions & { signal?: AbortSignal } = {}): Promise<Float64Array> {
    const { signal, ...rest } = opts;
    await awaitJob(() => this.#b.solve(rest), abortSignal('MaxflowBatch.solve', signal));
    return this.flows;
  }

  /** Frees the native graphs now (a later solve throws). */
  dispose(): void {
    callNative(() => this.#b.dispose());
  }
}

/** A native batch and its outputs: the flows, and the segments per graph (empty arrays when not wanted). */
interface BatchParts {
  native: NativeBatch;
  flows: Float64Array;
  segments: Uint8Array[];
}

function newBatch(fn: string, specs: readonly MaxflowGraphSpec[], wantSegments: boolean, retain: boolean): BatchParts {
  if (!Array.isArray(specs)) throw new InputError(`${fn}: graphs must be an array, got ${describe(specs)}`);
  const segments: Uint8Array[] = [];
  const graphs = specs.map((spec, i) => {
    const s = checkSpec(`${fn}: graphs[${i}]`, spec);
    const seg = new Uint8Array(wantSegments ? nodeCount(s) : 0);
    segments.push(seg);
    return wantSegments ? { ...s, segments: seg } : { ...s, segments: null };
  });
  const flows = new Float64Array(graphs.length);
  return { native: callNative(() => new binding.MaxflowBatch({ graphs, flows, retain, name: fn })), flows, segments };
}

/** Options of {@link maxflowBatch}. */
export interface MaxflowBatchOptions {
  /** Native threads solving graphs in parallel (default: available parallelism, at most the number of graphs; at most 256). */
  threads?: number;
  /**
   * Cancels the batch: an already aborted signal rejects at once; an abort while running stops
   * the threads before their next graph (a graph being solved finishes) and rejects with the
   * signal's reason.
   */
  signal?: AbortSignal;
  /** Compute the minimum cuts (default true); false leaves `segments` empty. */
  segments?: boolean;
}

/** The threads option of the one-shot batch functions. */
function batchThreads(fn: string, opts: { threads?: number }, graphs: number): number {
  const threads = opts.threads ?? Math.max(1, Math.min(availableParallelism(), graphs, 256));
  if (!Number.isInteger(threads) || threads < 1 || threads > 256) throw new InputError(`${fn}: opts.threads must be an integer in 1..256, got ${String(threads)}`);
  return threads;
}

/** One-shot batch results: one per graph. */
function batchResults(b: BatchParts): MaxflowResult[] {
  return b.segments.map((segments, i) => ({ flow: b.flows[i]!, segments }));
}

/**
 * Solves many independent graphs on the native thread pool, off the main thread; resolves to one
 * result per graph, in order. Validation of types and lengths throws (rejects) before any work;
 * bad values (e.g. a negative capacity) reject with an {@link InputError} naming the graph. The graphs
 * are solved in the threads' scratch graphs (nothing stays allocated per graph); to solve the same
 * graphs again and again, prepare a {@link MaxflowBatch}.
 *
 * **Contract:** the graphs' typed arrays are read in place by the threads: do not write,
 * transfer, detach or resize them until the promise settles.
 */
export async function maxflowBatch(specs: readonly MaxflowGraphSpec[], opts: MaxflowBatchOptions = {}): Promise<MaxflowResult[]> {
  const fn = 'maxflowBatch';
  const signal = abortSignal(fn, opts.signal);
  const b = newBatch(fn, specs, opts.segments ?? true, false);
  const threads = batchThreads(fn, opts, specs.length);
  await awaitJob(() => b.native.solve({ threads }), signal);
  return batchResults(b);
}

/**
 * {@link maxflowBatch} that blocks the calling thread while the native threads solve the graphs (no
 * Promise, no cancellation). Results equal one {@link maxflow} call per graph.
 */
export function maxflowBatchSync(specs: readonly MaxflowGraphSpec[], opts: Omit<MaxflowBatchOptions, 'signal'> = {}): MaxflowResult[] {
  const fn = 'maxflowBatchSync';
  const b = newBatch(fn, specs, opts.segments ?? true, false);
  const threads = batchThreads(fn, opts, specs.length);
  callNative(() => b.native.solveSync({ threads }));
  return batchResults(b);
}

// ---------------------------------------------------------------------------------------------
// DIMACS
// ---------------------------------------------------------------------------------------------

/** A DIMACS max-flow problem read by {@link parseDimacsMaxflow}. */
export interface DimacsMaxflow {
  /**
   * The graph: DIMACS node `i` is node `i-1`; the source and the sink stay as isolated placeholder
   * nodes; arcs s->v and u->t became terminal capacities; the other arcs between each pair of nodes
   * became one edge (oriented as the first of them in the file, capFwd and capRev the sums of the arcs
   * in each direction), or one edge per arc (capRev 0) with `mergeArcs: false`.
   */
  graph: MaxflowGraph;
  /** Number of DIMACS nodes (= graph.numNodes). */
  numNodes: number;
  /** The source's node id in `graph` (DIMACS id - 1). */
  source: number;
  /** The sink's node id in `graph` (DIMACS id - 1). */
  sink: number;
  /** Total capacity of s->t arcs: flow every cut pays. The file's max flow is `constant + graph.solve()`. */
  constant: number;
  /** Arcs into s or out of t (they cannot carry s-t flow; dropped). */
  ignoredArcs: number;
  /** Capacity type used. */
  capType: CapacityType;
}

/** Options of the DIMACS reader. */
export interface DimacsReadOptions {
  /**
   * `'auto'` (default): int32 for integer files whose node and edge capacity sums all fit in int32
   * (the fastest), else int64, and float64 when some capacity is not an integer.
   */
  capType?: 'auto' | CapacityType;
  /** Merge the arcs between the same two nodes into one edge (default true; see {@link DimacsMaxflow.graph}). */
  mergeArcs?: boolean;
  /** File name for error messages (`FILE:LINE: reason`). */
  file?: string;
}

/**
 * Parses a DIMACS max-flow problem (`p max N M`, `n ID s`, `n ID t`, `a U V CAP`, `c` comments).
 *
 * @param data - the file's text or bytes (bytes are parsed in place).
 * @throws {@link FormatError} with the 1-based line number on malformed input (bad counts, ids
 *   out of range, negative or non-numeric capacities, missing source/sink, wrong arc count...).
 */
export function parseDimacsMaxflow(data: string | Uint8Array, opts: DimacsReadOptions = {}): DimacsMaxflow {
  const capType = opts.capType ?? 'auto';
  if (!['auto', 'int32', 'int64', 'float64'].includes(capType)) throw new InputError(`parseDimacsMaxflow: capType must be 'auto', 'int32', 'int64' or 'float64', got ${String(capType)}`);
  const raw = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  if (!(raw instanceof Uint8Array)) throw new InputError(`parseDimacsMaxflow: data must be a string or a Uint8Array, got ${describe(data)}`);
  // A UTF-8 byte order mark (an editor's) is no line type: skip it, as the other readers do.
  const bytes = raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf ? raw.subarray(3) : raw;
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    throw new FormatError('gzip-compressed data, not DIMACS text: decompress it first (gapbcfw maxflow reads gzip files as they are)', opts.file);
  }
  let r: ReturnType<MaxflowBinding['maxflowReadDimacs']>;
  try {
    r = binding.maxflowReadDimacs(bytes, { capType, mergeArcs: opts.mergeArcs ?? true });
  } catch (e) {
    const line = (e as { line?: unknown }).line;
    if (e instanceof Error && typeof line === 'number') {
      const reason = e.message.replace(/^dimacs line \d+: /, '');
      throw opts.file === undefined ? new FormatError(`DIMACS line ${line}: ${reason}`, undefined, line) : new FormatError(reason, opts.file, line);
    }
    throw fromNative(e);
  }
  return {
    graph: wrapNative(r.graph),
    numNodes: r.numNodes,
    source: r.source,
    sink: r.sink,
    constant: r.constant,
    ignoredArcs: r.ignoredArcs,
    capType: r.capType,
  };
}

/** Reads a DIMACS max-flow file (see {@link parseDimacsMaxflow}); errors name `path:line`. */
export function readDimacsMaxflow(path: string, opts: Omit<DimacsReadOptions, 'file'> = {}): DimacsMaxflow {
  return parseDimacsMaxflow(readFileSync(path), { ...opts, file: path });
}

/** Options of {@link writeDimacsMaxflow}. */
export interface DimacsWriteOptions {
  /** Capacity of an extra s->t arc (default 0), e.g. {@link DimacsMaxflow.constant}. */
  constant?: number;
  /**
   * Node ids of a source and a sink placeholder inside the graph (isolated nodes without terminal
   * capacity, as {@link parseDimacsMaxflow} leaves them): node ids are kept (node i is DIMACS i+1).
   * Without them, graph nodes are DIMACS `1..n`, the source is `n+1` and the sink `n+2`.
   */
  source?: number;
  /** See {@link DimacsWriteOptions.source}. */
  sink?: number;
}

/**
 * Writes a graph as a DIMACS max-flow problem: `p`, `n` lines, then the s->t arc (constant), the
 * terminal arcs per node and the edges (forward, and reverse when > 0). Reading it back gives the
 * same capacities and the same max flow. Doubles are written with 17 significant digits.
 */
export function writeDimacsMaxflow(graph: MaxflowGraph, opts: DimacsWriteOptions = {}): string {
  const { constant = 0, source, sink } = opts;
  if ((source === undefined) !== (sink === undefined)) throw new InputError('writeDimacsMaxflow: give both source and sink, or neither');
  if (!(graph instanceof MaxflowGraph)) throw new InputError(`writeDimacsMaxflow: graph must be a MaxflowGraph, got ${describe(graph)}`);
  return callNative(() => handleOf(graph).toDimacs(constant, source ?? -1, sink ?? -1));
}
