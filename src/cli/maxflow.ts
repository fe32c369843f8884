import { setImmediate as nextTurn } from 'node:timers/promises';
import { readDataFile } from '../data/paths.js';
import { writeOutput } from '../io/output.js';
import { parseDimacsMaxflow, SOURCE_SIDE, type CapacityType } from '../native/maxflow.js';
import { value, type Args, type Command } from './args.js';
import { UsageError, report, type Io } from './common.js';
import { REPORT_OPTIONS } from './options.js';
import { checkCommandOutputs, withInterrupts } from './session.js';

/** `gapbcfw maxflow FILE.max`: the max flow of a DIMACS file with the native Boykov-Kolmogorov solver. @module */

export const maxflowCommand: Command = {
  name: 'maxflow',
  summary: 'Boykov-Kolmogorov max-flow of a DIMACS file (--json with timings)',
  description:
    'Reads a DIMACS max-flow problem (p max N M / n ID s / n ID t / a U V CAP lines; FILE may also be written\n' +
    'dimacs:FILE, and may be gzip-compressed) and prints its max-flow value, computed by the native Boykov-Kolmogorov solver. Timings let it be\n' +
    'compared with other max-flow tools on the same instances: readMs is reading the file and building the graph\n' +
    '(the arcs between two nodes become one edge), solveMs the max-flow computation alone, seconds everything.\n' +
    'With --json: flow, nodes, edges, capType, sourceSide, readMs, solveMs (median), solveMsMin, repeat, seconds.\n' +
    'Long --repeat runs report their progress on stderr once a second; SIGINT, SIGTERM and SIGHUP stop them after the solve\n' +
    'in progress (the summary counts the solves done) and exit 130, 143 or 129.',
  positionals: [{ name: 'FILE.max', help: 'a DIMACS max-flow file', input: 'file' }],
  options: [
    { name: 'repeat', type: 'integer', value: 'N', min: 1, max: 1e6, help: 'solve N times, each from scratch on a fresh copy of the graph; solveMs is the median', default: '1' },
    { name: 'cap-type', type: 'choice', value: 'T', choices: ['auto', 'int32', 'int64', 'float64'], help: 'capacity type (auto: int32 when every sum fits, else int64, for integer files; float64 otherwise)', default: 'auto' },
    { name: 'cut', type: 'string', value: 'FILE', output: 'file', help: 'write the source side of the minimum cut: DIMACS node ids, one per line (the source first)' },
    ...REPORT_OPTIONS.filter((o) => o.name !== 'quiet'),
  ],
  run: runMaxflow,
};

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const k = s.length >> 1;
  return s.length % 2 ? s[k]! : (s[k - 1]! + s[k]!) / 2;
};

async function runMaxflow(a: Args, io: Io): Promise<number> {
  const summaryIo = checkCommandOutputs(a, io);
  const positionals = a.positionals;
  const v = { cut: value.string(a, 'cut'), json: value.flag(a, 'json') };
  const file = positionals[0]!.startsWith('dimacs:') ? positionals[0]!.slice('dimacs:'.length) : positionals[0]!;
  if (file === '') throw new UsageError('maxflow: empty file name');
  const repeat = value.number(a, 'repeat') ?? 1;
  const capType = (value.string(a, 'cap-type') ?? 'auto') as 'auto' | CapacityType;

  const t0 = performance.now();
  const problem = parseDimacsMaxflow(readDataFile(file), { capType, file });
  const readMs = performance.now() - t0;
  const { graph } = problem;
  const times: number[] = [];
  let flow = 0;
  let solvedGraph = graph;
  let said = performance.now();
  const code = await withInterrupts(io, 'stopping the repetitions after the solve in progress', async (signal) => {
    for (let r = 0; r < repeat && !(r > 0 && signal.aborted); r++) {
      if (r > 0 && performance.now() - said > 1000) {
        io.stderr.write(`maxflow: ${r} of ${repeat} solves\n`); // progress of long --repeat runs, once a second
        said = performance.now();
      }
      // Every repetition solves a fresh copy from scratch (the copy is not timed); the last one
      // solves the graph itself.
      const g = r + 1 < repeat ? graph.clone() : graph;
      const s0 = performance.now();
      const f = g.solve();
      times.push(performance.now() - s0);
      if (r > 0 && f !== flow) throw new Error(`maxflow: repetition ${r + 1} gave flow ${f}, the first ${flow}`);
      flow = f;
      solvedGraph = g;
      await nextTurn(); // a signal gets through between repetitions
    }
    return 0;
  });
  flow += problem.constant;
  const segments = solvedGraph.segments();
  let sourceSide = 1; // the source itself
  for (let i = 0; i < segments.length; i++) if (i !== problem.source && segments[i] === SOURCE_SIDE) sourceSide++;
  if (v.cut !== undefined) {
    const ids = [problem.source + 1];
    for (let i = 0; i < segments.length; i++) if (i !== problem.source && segments[i] === SOURCE_SIDE) ids.push(i + 1);
    writeOutput(v.cut, `${ids.join('\n')}\n`, { stdout: io.stdout });
  }
  const edges = graph.numEdges; // node pairs joined by arcs; terminal arcs are folded into node capacities
  const round = (x: number) => Number(x.toFixed(4));
  const summary = {
    command: 'maxflow',
    file,
    flow,
    nodes: problem.numNodes,
    edges,
    capType: problem.capType,
    ignoredArcs: problem.ignoredArcs || undefined,
    sourceSide,
    repeat: times.length,
    readMs: round(readMs),
    solveMs: round(median(times)),
    solveMsMin: round(Math.min(...times)),
    seconds: round((performance.now() - t0) / 1000),
  };
  if (v.json) {
    report(summary, true, summaryIo, '');
  } else {
    summaryIo.stdout.write(`flow ${flow}\n`);
    io.stderr.write(
      `${problem.numNodes} nodes, ${edges} edges (${problem.capType}); read file and build graph ${summary.readMs} ms; ` +
        `solve (max-flow only) ${summary.solveMs} ms${times.length > 1 ? ` (median of ${times.length}, min ${summary.solveMsMin} ms)` : ''}; ` +
        `${sourceSide} nodes on the source side\n`,
    );
  }
  return code;
}
