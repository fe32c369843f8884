/**
 * dlib's structural SVM (the OCA cutting plane of Joachims/Teo et al., dlib 19.x) against gapbcfw's chain model on
 * OCR-small, on gapbcfw's objective (lambda/2 ||w||^2 + (1/n) sum_i H_i(w) with the normalised Hamming loss; dlib at
 * C = 1/lambda with the same joint feature map and a loss-augmented Viterbi that scores each emission once:
 * scripts/bench/peers/dlib-ocr.cpp). dlib trains at its epsilon (default 0.001); its w's primal P, computed with
 * gapbcfw's exact pass, is the target: each gapbcfw configuration is monitored once (the exact primal after every
 * pass, nothing fed back) for the first pass with primal <= P, then timed rounds alternate dlib and gapbcfw runs, each
 * in a fresh process, in CPU seconds of training alone (gapbcfw stopped at that pass, then certifying with one exact
 * pass as every run ends). "cold" = the first train() of its process, "warm" = a second one. Ratios: gapbcfw / the
 * dlib run just before it; medians.
 *
 *   npx tsx scripts/bench/dlib.ts [--lambda 0.01] [--eps 0.001] [--rounds 3] [--configs bcfw,bcfw-gap,bcpfw-gap,bcpfw-gap-cache,cutting-plane] [--quick]
 *
 * --quick: dlib at eps 0.1, BCPFW with gap sampling only, one round. Installs dlib from Debian when it is missing
 * (apt-get install libdlib-dev; root) and builds the harness with g++; without them it reports itself skipped.
 * One JSON object on stdout; progress on stderr. Data from $GAPBCFW_DATA or ../shared/data.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { dataPath } from '../../src/data/paths.js';
import { installed } from './peers/install.js';
import { firstPassBelow, primalOfFile, timedRounds, trainColdAndWarm } from './peers/to-primal.js';
import type { Problem } from '../../src/core/problem.js';
import { modelProblem } from '../../src/engine/problem.js';
import type { TrainSettings } from '../../src/solvers/settings.js';
import { setThreads } from '../../src/native/threads.js';
import { loadTask } from '../../src/tasks/index.js';
import { buildModel } from '../../src/tasks/model-kinds.js';

const CONFIGS: Record<string, TrainSettings> = {
  bcfw: { solver: 'bcfw' },
  'bcfw-gap': { solver: 'bcfw', sampling: 'gap' },
  'bcpfw-gap': { solver: 'bcfw', step: 'pairwise', sampling: 'gap' },
  'bcpfw-gap-cache': { solver: 'bcfw', step: 'pairwise', sampling: 'gap', cache: true },
  'cutting-plane': { solver: 'cutting-plane' },
};
// One native thread: CPU time against single-threaded peers.
setThreads(1);
const { values } = parseArgs({
  options: {
    lambda: { type: 'string', default: '0.01' },
    eps: { type: 'string', default: '0.001' },
    rounds: { type: 'string', default: '3' },
    configs: { type: 'string', default: Object.keys(CONFIGS).join(',') },
    worker: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});
if (values.quick) Object.assign(values, { eps: '0.1', rounds: '1', configs: 'bcpfw-gap' });

async function ocrSmall() {
  const data = await loadTask(`ocr:${dataPath('ocr', 'letter.data.gz')}`, { split: 'small' });
  return { data, problem: modelProblem(buildModel(data.spec, 'native'), data.train) };
}

/** Worker: one configuration trained twice in this process (cold, warm), stopped at a pass; prints the CPU seconds. */
async function worker(spec: { lambda: number; config: string; stopPass: number }): Promise<void> {
  const { problem } = await ocrSmall();
  trainColdAndWarm(problem, { ...CONFIGS[spec.config], lambda: spec.lambda }, spec.stopPass);
}

/** The harness, built once (dlib installed from Debian first when missing). */
function harness(): string {
  installed('/usr/include/dlib/svm.h', 'libdlib-dev');
  const exe = join(mkdtempSync(join(tmpdir(), 'gapbcfw-dlib-')), 'dlib-ocr');
  execFileSync('g++', ['-O3', '-DNDEBUG', '-std=c++17', fileURLToPath(new URL('./peers/dlib-ocr.cpp', import.meta.url)), '-o', exe, '-ldlib', '-lpthread', '-l:libblas.so.3', '-l:liblapack.so.3']);
  return exe;
}

/** The training words in the harness's text format (n, D, K; per word T and T lines of a state and its features). */
function writeWords(problem: Problem, data: Awaited<ReturnType<typeof ocrSmall>>['data'], file: string): void {
  const lines: string[] = [];
  const set = data.train;
  const first = set.input(0) as Float64Array;
  const D = first.length / (set.label(0) as Int32Array).length;
  lines.push(`${problem.n} ${D} ${(data.spec as { numLabels: number }).numLabels}`);
  for (let i = 0; i < problem.n; i++) {
    const x = set.input(i) as Float64Array;
    const y = set.label(i) as Int32Array;
    lines.push(String(y.length));
    for (let t = 0; t < y.length; t++) lines.push(`${y[t]} ${Array.from(x.subarray(t * D, (t + 1) * D)).join(' ')}`);
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

function dlib(exe: string, words: string, lambda: number, eps: string, wOut: string): number {
  const out = execFileSync(exe, [words, String(lambda), eps, wOut], { encoding: 'utf8' });
  return (JSON.parse(out.trim()) as { trainCpu: number }).trainCpu;
}

async function main(): Promise<void> {
  let exe: string;
  try {
    exe = harness();
  } catch (e) {
    console.log(JSON.stringify({ bench: 'dlib', skipped: `dlib unavailable: ${(e as Error).message.split('\n')[0]}` }));
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-dlib-run-'));
  const words = join(dir, 'words.txt');
  const wOut = join(dir, 'w.bin');
  const lambda = Number(values.lambda);
  const rounds = Number(values.rounds);
  const { data, problem } = await ocrSmall();
  writeWords(problem, data, words);
  const calibration = dlib(exe, words, lambda, values.eps, wOut);
  const target = primalOfFile(problem, lambda, wOut);
  process.stderr.write(`OCR-small lambda ${lambda}: dlib (eps ${values.eps}) primal ${target.toFixed(6)} in ${calibration.toFixed(2)} s CPU\n`);
  const configs: Record<string, unknown> = {};
  for (const config of values.configs.split(',')) {
    const pass = firstPassBelow(problem, { ...CONFIGS[config], lambda }, target, 600);
    if (pass === null) {
      configs[config] = { targetPass: null };
      continue;
    }
    const { peerCpu, ...times } = timedRounds(rounds, () => dlib(exe, words, lambda, values.eps, wOut), fileURLToPath(import.meta.url), { lambda, config, stopPass: pass });
    configs[config] = { targetPass: pass, ...times, dlibCpu: peerCpu };
    process.stderr.write(`  ${config}: ${JSON.stringify(configs[config])}\n`);
  }
  console.log(JSON.stringify({ bench: 'dlib', lambda, eps: Number(values.eps), n: problem.n, dlibPrimal: target, rounds, configs }, null, 1));
}

if (values.worker) await worker(JSON.parse(values.worker));
else await main();
