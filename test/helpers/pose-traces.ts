/**
 * The runs whose traces the pose model must keep (issue 21: the one-type, no-midpoint, one-scale model is the
 * model of commit 9a1af41). `poseTraceRuns` trains on synthetic float32 pose data with three solver settings
 * and returns what a run produced: the trace's exact-gap checkpoints and the returned w; `lspTraceRuns` trains
 * on the first 12 LSP-small images through the CLI (when the data is present; at 9a1af41 without the
 * `--types 1 --no-midpoints` that select that model today). The fixture
 * test/fixtures/pose/k1-traces.json holds the output of this code at commit 9a1af41
 * (`npx tsx test/helpers/pose-traces.ts > test/fixtures/pose/k1-traces.json`).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modelProblem } from '../../src/engine/problem.js';
import { dataPath, hasData } from '../../src/data/paths.js';
import { PoseModel, type PoseInput, type PoseLabel } from '../../src/models/pose.js';
import { train } from '../../src/solvers/index.js';
import type { TrainSettings } from '../../src/solvers/settings.js';
import { cli } from './capture.js';

/** Small deterministic PRNG (independent of the package's). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** 16 images of several grid sizes: each part's cell carries a bump in its feature channel, plus noise. */
export function syntheticPoseSet(): { model: PoseModel; xs: PoseInput[]; ys: PoseLabel[] } {
  const rnd = lcg(2016);
  const parents = [1, -1, 1, 2, 0];
  const offsets = [{ dx: -1, dy: 2 }, { dx: 0, dy: 0 }, { dx: 2, dy: 1 }, { dx: 1, dy: 2 }, { dx: -1, dy: 2 }];
  const model = new PoseModel({ parents, meanOffsets: offsets, filterSize: 3, featureDim: 5, defScale: 2, threads: 2 });
  const xs: PoseInput[] = [];
  const ys: PoseLabel[] = [];
  for (let i = 0; i < 16; i++) {
    const rows = 9 + (i % 3);
    const cols = 8 + ((i * 7) % 4);
    const data = Float32Array.from({ length: rows * cols * 5 }, () => 0.3 * rnd());
    const x = new Int32Array(5);
    const y = new Int32Array(5);
    x[1] = 2 + Math.floor(rnd() * (cols - 4));
    y[1] = Math.floor(rnd() * 3);
    for (const p of [2, 0, 3, 4]) {
      const q = parents[p]!;
      x[p] = Math.min(cols - 1, Math.max(0, x[q]! + offsets[p]!.dx + Math.floor(rnd() * 3) - 1));
      y[p] = Math.min(rows - 1, Math.max(0, y[q]! + offsets[p]!.dy + Math.floor(rnd() * 3) - 1));
    }
    for (let p = 0; p < 5; p++) data[(y[p]! * cols + x[p]!) * 5 + p]! += 1;
    xs.push({ rows, cols, dim: 5, data });
    ys.push({ x, y, scale: 2 + (i % 4) * 0.5 });
  }
  return { model, xs, ys };
}

/** The solver settings of the fixture runs. */
export const POSE_TRACE_SETTINGS: Record<string, TrainSettings> = {
  bcfw: { lambda: 0.05, maxPasses: 6, gapCheck: 1, gapThreshold: 1e-9, seed: 2 },
  'bcpfw-gap-cache': { lambda: 0.05, maxPasses: 6, gapCheck: 2, gapThreshold: 1e-9, seed: 3, step: 'pairwise', sampling: 'gap', cache: true },
  'bcafw-lambda-0.5': { lambda: 0.5, maxPasses: 4, gapCheck: 1, gapThreshold: 1e-9, seed: 4, step: 'away' },
};

/** Each setting's run: its exact-gap checkpoints (pass, primal, dual, gap) and the returned w. */
export function poseTraceRuns(): Record<string, { checks: number[][]; w: number[] }> {
  const { model, xs, ys } = syntheticPoseSet();
  const out: Record<string, { checks: number[][]; w: number[] }> = {};
  for (const [name, options] of Object.entries(POSE_TRACE_SETTINGS)) {
    const res = train(modelProblem(model, xs, ys), options);
    const checks = res.trace.filter((t) => t.gapIsExact).map((t) => [t.pass, t.primal!, t.dual!, t.gap!]);
    out[name] = { checks, w: [...res.w] };
  }
  return out;
}

/** The CLI runs on real LSP images of the fixture (the argument lists after `train lsp:DIR`). */
export const LSP_TRACE_RUNS: Record<string, string[]> = {
  bcfw: ['--types', '1', '--no-midpoints', '--split', 'small', '--limit', '12', '--test-limit', '12', '--max-passes', '3', '--gap-check', '1', '--lambda', '1'],
  'bcpfw-gap-cache': ['--types', '1', '--no-midpoints', '--split', 'small', '--limit', '12', '--test-limit', '12', '--max-passes', '4', '--gap-check', '2', '--lambda', '0.1', '--solver', 'bcpfw', '--sampling', 'gap', '--cache', '--seed', '5'],
};

/** Each CLI run's summary (objective, gap, metrics) and its trace's exact-gap checkpoints; null without LSP data. */
export async function lspTraceRuns(): Promise<Record<string, { summary: Record<string, unknown>; checks: number[][] }> | null> {
  if (!hasData('lsp', 'joints.mat')) return null;
  const dir = mkdtempSync(join(tmpdir(), 'pose-traces-'));
  const out: Record<string, { summary: Record<string, unknown>; checks: number[][] }> = {};
  for (const [name, args] of Object.entries(LSP_TRACE_RUNS)) {
    const trace = join(dir, `${name}.jsonl`);
    // --eval-every 1: the fixture has the test metrics of every exact check (train's default evaluates fewer).
    const r = await cli('train', `lsp:${dataPath('lsp')}`, ...args, '--eval-every', '1', '--trace', trace, '--json', '--quiet');
    if (r.code !== 0) throw new Error(r.stderr);
    const keys = ['dim', 'passes', 'effectivePasses', 'oracleCalls', 'primal', 'dual', 'gap', 'testError', 'pcp', 'pck', 'meanPosePcp', 'meanPosePck', 'meanPoseLoss'];
    const summary = Object.fromEntries(keys.map((k) => [k, r.json![k]]));
    const checks = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, number>)
      .filter((t) => t.gapIsExact)
      .map((t) => [t.pass!, t.primal!, t.dual!, t.gap!, t.testError!, t.pcp!, t.pck!]);
    out[name] = { summary, checks };
  }
  return out;
}

if (process.argv[1]?.endsWith('pose-traces.ts')) process.stdout.write(`${JSON.stringify({ synthetic: poseTraceRuns(), lsp: await lspTraceRuns() })}\n`);
