import { writeOutput } from '../io/output.js';
import { InputError } from '../core/errors.js';
import { readDimacsMaxflow, SOURCE_SIDE, type CapacityType } from '../maxflow.js';
import { UsageError, integer, number, parse, report, type Io } from './common.js';

export const MAXFLOW_USAGE = `Usage: gapbcfw maxflow FILE.max [options]

Reads a DIMACS max-flow problem (p max N M / n ID s / n ID t / a U V CAP lines; FILE may also be
written dimacs:FILE) and prints its max-flow value, computed by the native Boykov-Kolmogorov
solver. Timings let it be compared with other max-flow tools on the same instances.

Options:
  --json               last stdout line is a JSON object: flow, nodes, arcs, capType,
                       sourceSide, readMs, solveMs (median), solveMsMin, repeat, seconds
  --repeat N           solve N times, each from scratch on a fresh copy of the graph
                       (default 1); solveMs is the median, solveMsMin the fastest
  --cap-type T         auto (default: int64 for integer files, float64 otherwise), int32,
                       int64 or float64
  --cut FILE           write the source side of the minimum cut: DIMACS node ids, one per line
                       (the source first)
  --help

Exit codes: 0 success, 2 bad usage or a malformed file (the message names FILE:LINE).`;

const MAXFLOW_OPTIONS = {
  json: { type: 'boolean' },
  repeat: { type: 'string' },
  'cap-type': { type: 'string' },
  cut: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const k = s.length >> 1;
  return s.length % 2 ? s[k]! : (s[k - 1]! + s[k]!) / 2;
};

/**
 * `gapbcfw maxflow FILE.max [--json] [--repeat N] [--cap-type T] [--cut OUT]`: the max flow of a
 * DIMACS file. Returns the exit code: usage errors and malformed files print one line
 * `gapbcfw: REASON` to stderr and return 2.
 */
export async function runMaxflow(args: string[], io: Io): Promise<number> {
  try {
    return runMaxflowUnchecked(args, io);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (e instanceof InputError || code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR' || code === 'ENOTDIR') {
      io.stderr.write(`gapbcfw: ${(e as Error).message}\n`);
      return 2;
    }
    throw e;
  }
}

function runMaxflowUnchecked(args: string[], io: Io): number {
  const { values: v, positionals } = parse(args, MAXFLOW_OPTIONS);
  if (v.help) {
    io.stdout.write(`${MAXFLOW_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('maxflow takes one DIMACS file, e.g. gapbcfw maxflow problem.max --json');
  const file = positionals[0]!.startsWith('dimacs:') ? positionals[0]!.slice('dimacs:'.length) : positionals[0]!;
  if (file === '') throw new UsageError('maxflow: empty file name');
  const repeat = number(v.repeat, 'repeat', (x) => integer(1)(x) && x <= 1_000_000, 'an integer >= 1') ?? 1;
  const capType = (v['cap-type'] ?? 'auto') as 'auto' | CapacityType;
  if (!['auto', 'int32', 'int64', 'float64'].includes(capType)) throw new UsageError(`--cap-type must be auto, int32, int64 or float64, got '${capType}'`);

  const t0 = performance.now();
  const problem = readDimacsMaxflow(file, { capType });
  const readMs = performance.now() - t0;
  const { graph } = problem;
  const times: number[] = [];
  let flow = 0;
  let solvedGraph = graph;
  for (let r = 0; r < repeat; r++) {
    // Every repetition solves a fresh copy from scratch (the copy is not timed); the last one
    // solves the graph itself.
    const g = r + 1 < repeat ? graph.clone() : graph;
    const s0 = performance.now();
    const f = g.solve();
    times.push(performance.now() - s0);
    if (r > 0 && f !== flow) throw new Error(`maxflow: repetition ${r + 1} gave flow ${f}, the first ${flow}`);
    flow = f;
    solvedGraph = g;
  }
  flow += problem.constant;
  const segments = solvedGraph.segments();
  let sourceSide = 1; // the source itself
  for (let i = 0; i < segments.length; i++) if (i !== problem.source && segments[i] === SOURCE_SIDE) sourceSide++;
  if (v.cut !== undefined) {
    const ids = [problem.source + 1];
    for (let i = 0; i < segments.length; i++) if (i !== problem.source && segments[i] === SOURCE_SIDE) ids.push(i + 1);
    writeOutput(v.cut, `${ids.join('\n')}\n`, { stdout: io.stdout });
  }
  const arcs = graph.numEdges; // non-terminal arcs; terminal arcs are folded into node capacities
  const round = (x: number) => Number(x.toFixed(4));
  const summary = {
    command: 'maxflow',
    file,
    flow,
    nodes: problem.numNodes,
    edges: arcs,
    capType: problem.capType,
    ignoredArcs: problem.ignoredArcs || undefined,
    sourceSide,
    repeat,
    readMs: round(readMs),
    solveMs: round(median(times)),
    solveMsMin: round(Math.min(...times)),
    seconds: round((performance.now() - t0) / 1000),
  };
  if (v.json) {
    report(summary, true, io, '');
  } else {
    io.stdout.write(`flow ${flow}\n`);
    io.stderr.write(
      `${problem.numNodes} nodes, ${arcs} inner arcs (${problem.capType}), read ${summary.readMs} ms, ` +
        `solve ${summary.solveMs} ms${repeat > 1 ? ` (median of ${repeat}, min ${summary.solveMsMin} ms)` : ''}, ` +
        `${sourceSide} nodes on the source side\n`,
    );
  }
  return 0;
}
