/**
 * LIBLINEAR -s 4 (Crammer-Singer; Keerthi et al. 2008) against gapbcfw's multiclass SSVM on the same objective,
 * lambda/2 ||w||^2 + (1/n) sum_i max_y ([y != y_i] + <w_y - w_{y_i}, x_i>), C = 1/(lambda n), no bias on either
 * side. Per set and lambda: LIBLINEAR at its default tolerance (eps 0.1) gives a model whose primal P is computed with
 * gapbcfw's own exact pass; each gapbcfw configuration is monitored once (the exact primal after every pass, nothing
 * fed back) to find the first pass with primal <= (1 + 1e-3) P; then timed rounds alternate LIBLINEAR and gapbcfw
 * runs, each in a fresh process, in CPU seconds of training alone: LIBLINEAR's train() (scripts/bench/peers/
 * liblinear-cs.c), gapbcfw's train() stopped at that pass (it then certifies with one exact pass, as every run ends).
 * "cold" is the first train() of its process (what one command-line run pays, JIT warm-up included), "warm" a second
 * one in the same process, "steady" the median of six more (a process that trains many models: a grid search, a
 * regularization path). Ratios are gapbcfw / the LIBLINEAR run just before it; medians over the rounds.
 *
 *   npx tsx scripts/bench/liblinear.ts [--sets dna,pendigits,usps] [--lambdas 1e-2,1e-3,1/n] [--rounds 3]
 *                                      [--configs exact-perm,exact-gap,exact-perm-unshrunk,bcfw,bcpfw-gap-cache,cutting-plane] [--quick]
 *
 * --quick: dna at lambda 1e-2, the default configuration only, one round. Installs LIBLINEAR from Debian when it is
 * missing (apt-get install liblinear-dev; root), builds the harness with cc; without them it reports itself skipped.
 * One JSON object on stdout; progress on stderr. Data from $GAPBCFW_DATA or ../shared/data.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { dataPath } from '../../src/data/paths.js';
import { installed } from './peers/install.js';
import { firstPassBelow, primalOfFile, round, timedRounds, trainColdAndWarm } from './peers/to-primal.js';
import { modelProblem } from '../../src/engine/problem.js';
import type { TrainSettings } from '../../src/solvers/settings.js';
import { setThreads } from '../../src/native/threads.js';
import { loadTask } from '../../src/tasks/index.js';
import { buildModel } from '../../src/tasks/model-kinds.js';

const SETS: Record<string, string> = { dna: 'dna/dna.scale', pendigits: 'pendigits/pendigits.scale', usps: 'usps_partial/usps.t.subset299' };
const CONFIGS: Record<string, TrainSettings> = {
  // The default for multiclass data: exact steps, a permutation per pass, settled rows skipped (shrinking).
  'exact-perm': { solver: 'bcfw', step: 'exact', sampling: 'perm' },
  'exact-gap': { solver: 'bcfw', step: 'exact', sampling: 'gap' },
  'exact-perm-unshrunk': { solver: 'bcfw', step: 'exact', sampling: 'perm', shrinking: false },
  bcfw: { solver: 'bcfw' },
  'bcpfw-gap-cache': { solver: 'bcfw', step: 'pairwise', sampling: 'gap', cache: true },
  'cutting-plane': { solver: 'cutting-plane' },
};
// One native thread: CPU time against single-threaded peers.
setThreads(1);
const { values } = parseArgs({
  options: {
    sets: { type: 'string', default: 'dna,pendigits,usps' },
    lambdas: { type: 'string', default: '1e-2,1e-3,1/n' },
    rounds: { type: 'string', default: '3' },
    configs: { type: 'string', default: Object.keys(CONFIGS).join(',') },
    worker: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});
if (values.quick) Object.assign(values, { sets: 'dna', lambdas: '1e-2', rounds: '1', configs: 'exact-perm' });

async function problemOf(set: string) {
  const data = await loadTask(`libsvm:${dataPath('multiclass', SETS[set]!)}`, {});
  return modelProblem(buildModel(data.spec, 'native'), data.train);
}

/** Worker: trains one configuration 8 times in this process (cold, warm, then steady), stopping at a pass; prints the CPU seconds. */
async function worker(spec: { set: string; lambda: number; config: string; stopPass: number }): Promise<void> {
  trainColdAndWarm(await problemOf(spec.set), { ...CONFIGS[spec.config], lambda: spec.lambda }, spec.stopPass, 8);
}

/** The LIBLINEAR harness, built once (LIBLINEAR installed from Debian first when missing). */
function harness(): string {
  installed('/usr/include/linear.h', 'liblinear-dev');
  const exe = join(mkdtempSync(join(tmpdir(), 'gapbcfw-liblinear-')), 'liblinear-cs');
  execFileSync('cc', ['-O2', fileURLToPath(new URL('./peers/liblinear-cs.c', import.meta.url)), '-llinear', '-o', exe]);
  return exe;
}

function liblinear(exe: string, file: string, C: number, repeats: number, wOut: string): number[] {
  const out = execFileSync(exe, [file, String(C), '0.1', String(repeats), wOut], { encoding: 'utf8' });
  return out.trim().split('\n').map((l) => (JSON.parse(l) as { trainCpu: number }).trainCpu);
}

async function main(): Promise<void> {
  let exe: string;
  try {
    exe = harness();
  } catch (e) {
    console.log(JSON.stringify({ bench: 'liblinear', skipped: `LIBLINEAR unavailable: ${(e as Error).message.split('\n')[0]}` }));
    return;
  }
  const wOut = join(mkdtempSync(join(tmpdir(), 'gapbcfw-ll-w-')), 'w.bin');
  const rounds = Number(values.rounds);
  const cells: unknown[] = [];
  for (const set of values.sets.split(',')) {
    const problem = await problemOf(set);
    const file = dataPath('multiclass', SETS[set]!);
    for (const spec of values.lambdas.split(',')) {
      const lambda = spec === '1/n' ? 1 / problem.n : Number(spec);
      const C = 1 / (lambda * problem.n);
      liblinear(exe, file, C, 1, wOut);
      const primal = primalOfFile(problem, lambda, wOut);
      const target = (1 + 1e-3) * primal;
      process.stderr.write(`${set} lambda ${spec} (C = ${C.toPrecision(4)}): LIBLINEAR primal ${primal.toFixed(6)}, target ${target.toFixed(6)}\n`);
      const configs: Record<string, unknown> = {};
      for (const config of values.configs.split(',')) {
        const pass = firstPassBelow(problem, { ...CONFIGS[config], lambda }, target, 300);
        if (pass === null) {
          configs[config] = { targetPass: null };
          continue;
        }
        const { peerCpu, ...times } = timedRounds(rounds, () => liblinear(exe, file, C, 1, wOut)[0]!, fileURLToPath(import.meta.url), { set, lambda, config, stopPass: pass });
        configs[config] = { targetPass: pass, ...times, liblinearCpu: peerCpu };
        process.stderr.write(`  ${config}: pass ${pass}, ${JSON.stringify(configs[config])}\n`);
      }
      cells.push({ set, lambda: spec, n: problem.n, C: round(C), liblinearPrimal: primal, configs });
    }
  }
  console.log(JSON.stringify({ bench: 'liblinear', rounds, cells }, null, 1));
}

if (values.worker) await worker(JSON.parse(values.worker));
else await main();
