/**
 * The race of scripts/bench/liblinear.ts and dlib.ts: CPU seconds of gapbcfw's training to the primal a peer reaches.
 * A peer's w (float64, written by its harness) gives the target primal through gapbcfw's own exact pass; each gapbcfw
 * configuration is monitored once for the first pass at or below it; then timed rounds alternate a peer run and a
 * gapbcfw worker process that trains to that pass twice (cold: the first train() of the process, what one
 * command-line run pays; warm: a second one). Ratios are gapbcfw / the peer run just before it; medians.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Problem } from '../../../src/core/problem.js';
import { fullOraclePass } from '../../../src/solvers/common.js';
import { train } from '../../../src/solvers/index.js';
import type { TrainSettings } from '../../../src/solvers/settings.js';

/** User + system CPU seconds of this process. */
export function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export const round = (x: number, digits = 4) => Number(x.toPrecision(digits));

/** The primal lambda/2 ||w||^2 + (1/n) sum_i H_i(w) of the float64 w a peer's harness wrote to `file`. */
export function primalOfFile(problem: Problem, lambda: number, file: string): number {
  const bytes = readFileSync(file);
  const w = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8).slice();
  let wSq = 0;
  for (const x of w) wSq += x * x;
  return 0.5 * lambda * wSq + fullOraclePass(problem, w).hingeSum / problem.n;
}

/** The first pass whose exact primal is <= target (monitored: the exact gap after every pass, fed back nowhere). */
export function firstPassBelow(problem: Problem, settings: TrainSettings, target: number, timeBudget: number): number | null {
  let hit: number | null = null;
  const stop = new AbortController();
  const monitor = settings.solver === 'cutting-plane' ? {} : { monitorEvery: 1 };
  train(problem, { ...settings, gapThreshold: 0, maxPasses: 100000, timeBudget, ...monitor }, { signal: stop.signal, onProgress: (e) => {
    if (hit === null && e.primal !== undefined && e.primal <= target) {
      hit = e.pass;
      stop.abort();
    }
  } });
  return hit;
}

/**
 * The worker's part: trains to `stopPass` `runs` times in this process (the first cold, the second warm, the others
 * steady: the JIT settled, as in a process that trains many models) and prints their CPU seconds as JSON.
 */
export function trainColdAndWarm(problem: Problem, settings: TrainSettings, stopPass: number, runs = 2): void {
  const times = Array.from({ length: runs }, () => {
    const stop = new AbortController();
    const hooks = { signal: stop.signal, onProgress: (e: { pass: number }) => {
      if (e.pass >= stopPass && !stop.signal.aborted) stop.abort();
    } };
    const c0 = cpuSeconds();
    const r = train(problem, { ...settings, gapThreshold: 0, maxPasses: 1e6 }, hooks);
    return { cpu: cpuSeconds() - c0, primal: r.primal!, passes: r.passes };
  });
  console.log(JSON.stringify(times));
}

/**
 * `rounds` rounds of a peer run (`peer()` returns its CPU seconds) then a worker process (`script --worker SPEC`,
 * which calls trainColdAndWarm); medians of the peer's and the gapbcfw CPU times (cold, warm, and steady: the runs
 * after the second, when the worker makes more), and of the cold ratios.
 */
export function timedRounds(rounds: number, peer: () => number, script: string, spec: object) {
  const peerCpu: number[] = [];
  const cold: number[] = [];
  const warm: number[] = [];
  const steady: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const p = peer();
    const child = spawnSync(process.execPath, ['--import', 'tsx', script, '--worker', JSON.stringify(spec)], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(child.stderr);
    const [c, w, ...later] = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { cpu: number }[];
    peerCpu.push(p);
    cold.push(c!.cpu);
    warm.push(w!.cpu);
    steady.push(...later.map((r) => r.cpu));
    ratios.push(c!.cpu / p);
  }
  const steadyFields = steady.length > 0 ? { cpuSteady: round(median(steady)), ratioSteady: round(median(steady) / median(peerCpu)) } : {};
  return { cpuCold: round(median(cold)), cpuWarm: round(median(warm)), ...steadyFields, ratioCold: round(median(ratios)), ratioWarm: round(median(warm) / median(peerCpu)), peerCpu: round(median(peerCpu)) };
}
