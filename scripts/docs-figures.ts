/**
 * Regenerates the figures and numbers that README.md and the model pages quote, each with its settings pinned
 * (sequential block steps, seeds, budgets), so that they come out the same on any number of cores (only seconds
 * change). docs/results.md gives every other experiment's command beside its table.
 *
 *   npx tsx scripts/docs-figures.ts --list                      # the targets and their commands, nothing run
 *   npx tsx scripts/docs-figures.ts --only quickstart,conll     # run some targets (all when --only is absent)
 *   npx tsx scripts/docs-figures.ts --horse DIR                 # the horse targets need a prepared set (prepare-horse)
 *
 * Each target runs its commands in order (`gapbcfw ...` runs this checkout's CLI from source, `scripts/...` through
 * tsx), writes their outputs under --runs (default runs/docs-figures/TARGET) and copies its figures into
 * docs/figures/. Data come from $GAPBCFW_DATA (default ../shared/data). A JSON line per command goes to stdout:
 * the command as run and what it printed as JSON (its summary), which holds the numbers the pages quote.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { dataPath } from '../src/data/paths.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** A target: the page that quotes it, its commands ({RUN} is its output folder, {HORSE} the prepared horse set) and its figures. */
export interface FigureTarget {
  name: string;
  pages: string[];
  /** What the pages quote from it. */
  quotes: string;
  commands: string[][];
  /** [file under {RUN}, file under docs/figures]. */
  figures: [string, string][];
  needsHorse?: boolean;
}

const OCR = () => `ocr:${dataPath('ocr', 'letter.data.gz')}`;

export const TARGETS: readonly FigureTarget[] = [
  {
    name: 'quickstart',
    pages: ['README.md'],
    quotes: 'demo gap and test error; OCR-small passes, effective passes, exact gap, test error; the plot',
    commands: [
      ['gapbcfw', 'demo', '--json', '--quiet'],
      ['gapbcfw', 'train', OCR(), '--split', 'small', '--lambda', '0.01', '--out', '{RUN}/ocr.gbm', '--trace', '{RUN}/ocr.jsonl', '--json', '--quiet'],
      ['gapbcfw', 'eval', '{RUN}/ocr.gbm', OCR(), '--split', 'small', '--json'],
      ['gapbcfw', 'plot', '{RUN}/ocr.jsonl', '--out', '{RUN}/ocr-gap.png', '--json'],
    ],
    figures: [['ocr-gap.png', 'quickstart-ocr-gap.png']],
  },
  {
    name: 'chain-best-variant',
    pages: ['docs/models/chain.md'],
    quotes: 'BCPFW + gap sampling + cache on OCR-large, lambda 1e-3: effective passes to the exact gaps 0.01 and 0.005 (seed 1)',
    commands: [
      ['scripts/experiments/variants.ts', '--data', OCR(), '--split', 'large', '--lambda', '1e-3', '--seeds', '1', '--batch', '1', '--methods', 'BCPFW, gap, cache',
        '--max-passes', '400', '--gap-threshold', '0.002', '--monitor', '1', '--out', '{RUN}'],
      ['scripts/experiments/summarize.ts', '{RUN}', '--thresholds', '1e-1,1e-2,5e-3'],
    ],
    figures: [],
  },
  {
    name: 'path-ocr-small',
    pages: ['docs/models/chain.md', 'docs/results.md'],
    quotes: 'the regularization path and grid search on OCR-small, epsilon 0.1: breakpoints, effective passes, true gaps of the heuristic path',
    commands: [['scripts/experiments/path.ts', '--data', OCR(), '--split', 'small', '--min-lambda', '1e-4', '--time-budget', '300', '--batch', '1', '--out', '{RUN}']],
    figures: [['passes.png', 'path-ocr-small-passes.png'], ['time.png', 'path-ocr-small-time.png'], ['test-error.png', 'path-ocr-small-test-error.png']],
  },
  {
    name: 'conll',
    pages: ['docs/models/conll.md', 'docs/results.md'],
    quotes: 'CoNLL-2000 at lambda 1e-2: passes, effective passes, exact gap and test chunk F1',
    commands: [['gapbcfw', 'train', `conll:${dataPath('conll2000')}`, '--lambda', '1e-2', '--batch', '1', '--max-passes', '60', '--gap-threshold', '0.003', '--json', '--quiet']],
    figures: [],
  },
  {
    name: 'multiclass',
    pages: ['docs/models/multiclass.md'],
    quotes: 'dna and pendigits with the exact steps and with BCFW; pendigits with the four Frank-Wolfe solvers at 80 passes',
    commands: [
      ...[[], ['--solver', 'bcfw']].map((extra) => ['gapbcfw', 'train', `libsvm:${dataPath('multiclass', 'dna', 'dna.scale')}`, '--test', `libsvm:${dataPath('multiclass', 'dna', 'dna.scale.t')}`, '--lambda', '0.01', ...extra, '--json', '--quiet']),
      ...[[], ['--solver', 'bcfw']].map((extra) => ['gapbcfw', 'train', `libsvm:${dataPath('multiclass', 'pendigits', 'pendigits.scale')}`, '--test', `libsvm:${dataPath('multiclass', 'pendigits', 'pendigits.scale.t')}`, '--lambda', '1e-3', ...extra, '--json', '--quiet']),
      ...['afw', 'svrf', 'sfw', 'fw'].map((solver) => ['gapbcfw', 'multiclass-fw', `libsvm:${dataPath('multiclass', 'pendigits', 'pendigits.scale')}`, '--test', `libsvm:${dataPath('multiclass', 'pendigits', 'pendigits.scale.t')}`, '--tau', '30', '--solver', solver, '--max-passes', '80', '--json', '--quiet']),
    ],
    figures: [],
  },
  {
    name: 'horse',
    pages: ['docs/models/segmentation.md', 'docs/results.md'],
    quotes: 'test error along lambda on the 147 Weizmann horses (horse.ts), and the regularization path and grid search on them with figures',
    needsHorse: true,
    commands: [
      ['scripts/experiments/horse.ts', '--data', '{HORSE}', '--lambdas', '1000,100,10,1,0.1', '--max-passes', '50'],
      ['scripts/experiments/path.ts', '--data', 'horse:{HORSE}', '--min-lambda', '0.1', '--time-budget', '240', '--batch', '1', '--out', '{RUN}'],
    ],
    figures: [['passes.png', 'path-horse-passes.png'], ['time.png', 'path-horse-time.png'], ['test-error.png', 'path-horse-test-error.png']],
  },
];

/** What a command printed: all of it when it is one JSON value (summarize.ts), else its last JSON line (the CLI's --json). */
function summaryOf(stdout: string): unknown {
  const text = stdout.trim();
  try {
    return JSON.parse(text);
  } catch {
    const last = text.split('\n').filter((l) => l.startsWith('{')).at(-1);
    return last ? JSON.parse(last) : null;
  }
}

/** The argument list a target's command runs with: {RUN} and {HORSE} filled in, `gapbcfw` as this checkout's CLI. */
export function commandLine(argv: readonly string[], run: string, horse: string): string[] {
  const filled = argv.map((a) => a.replaceAll('{RUN}', run).replaceAll('{HORSE}', horse));
  return filled[0] === 'gapbcfw' ? ['tsx', 'src/cli/main.ts', ...filled.slice(1)] : ['tsx', ...filled];
}

function main(): void {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      list: { type: 'boolean', default: false },
      runs: { type: 'string', default: 'runs/docs-figures' },
      horse: { type: 'string' },
      // Copy the figures into docs/figures (default); --no-copy leaves the pages' files alone.
      'no-copy': { type: 'boolean', default: false },
    },
  });
  const wanted = values.only?.split(',');
  for (const name of wanted ?? []) if (!TARGETS.some((t) => t.name === name)) throw new Error(`unknown target '${name}' (${TARGETS.map((t) => t.name).join(', ')})`);
  for (const target of TARGETS) {
    if (wanted && !wanted.includes(target.name)) continue;
    const run = resolve(values.runs, target.name);
    if (target.needsHorse && !values.horse && !values.list) {
      process.stderr.write(`${target.name}: skipped (needs --horse DIR, a set prepared with gapbcfw prepare-horse)\n`);
      continue;
    }
    const horse = values.horse ?? '{HORSE}';
    if (values.list) {
      for (const argv of target.commands) console.log(JSON.stringify({ target: target.name, pages: target.pages, command: `npx ${commandLine(argv, run, horse).join(' ')}` }));
      continue;
    }
    mkdirSync(run, { recursive: true });
    for (const argv of target.commands) {
      const [bin, ...args] = commandLine(argv, run, horse);
      process.stderr.write(`${target.name}: npx ${bin} ${args.join(' ')}\n`);
      const r = spawnSync('npx', [bin!, ...args], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 28 });
      if (r.status !== 0) throw new Error(`${target.name}: command failed (exit ${r.status})`);
      console.log(JSON.stringify({ target: target.name, command: [bin, ...args].join(' '), summary: summaryOf(r.stdout) }));
    }
    if (!values['no-copy']) for (const [from, to] of target.figures) copyFileSync(join(run, from), join(root, 'docs', 'figures', to));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
