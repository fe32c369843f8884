/**
 * gapbcfw's `seq:` against CRFsuite 0.12 on CoNLL-2000 chunking, side by side in one run: training CPU and test
 * chunk F1 of each at several stopping points (gapbcfw: lambda 1e-2 to exact gaps 0.1, 0.02, 0.005; CRFsuite:
 * L-BFGS stopped after K iterations, and run to its own convergence test), and the CPU of tagging the 2,012 test
 * sentences counting the process start. Both read the same attribute files: CoNLL-2000 written in CRFsuite's
 * format with the attributes of `conll:` (scripts/conll-to-crfsuite.ts). F1 by conlleval's rules
 * (src/eval/sequences.ts) on both tools' output.
 *
 * CRFsuite runs through python-crfsuite (its C library; `pip install python-crfsuite`), driven by
 * scripts/bench/crfsuite-peer.py: its training CPU is the train() call alone; its tagging CPU is the whole Python
 * process (start, reading the attribute file in Python, opening the model, tagging), an upper bound of the
 * `crfsuite tag` command's. Whole-process CPU (user + sys) of every other run, by /usr/bin/time. gapbcfw runs its
 * built CLI (npm run build:ts) on one thread, as CRFsuite has one.
 *
 *   npx tsx scripts/bench/crfsuite.ts [--rounds R] [--iterations 40,80,120] [--gaps 0.1,0.02,0.005]
 *
 * Prints one JSON object (progress on stderr). Data: $GAPBCFW_DATA/conll2000.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConll } from '../../src/data/conll.js';
import { conllAttributes } from '../../src/data/conll-features.js';
import { dataPath } from '../../src/data/paths.js';
import { formatAttributeLine } from '../../src/data/seq.js';
import { sequenceScores } from '../../src/eval/sequences.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(root, 'dist', 'src', 'cli', 'main.js');
const peer = join(root, 'scripts', 'bench', 'crfsuite-peer.py');
const arg = (name: string, fallback: string) => {
  const k = process.argv.indexOf(`--${name}`);
  return k > 0 ? process.argv[k + 1]! : fallback;
};
const rounds = Number(arg('rounds', '1'));
const iterations = arg('iterations', '40,80,120').split(',').map(Number);
const gaps = arg('gaps', '0.1,0.02,0.005').split(',').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-crfsuite-'));
const say = (line: string) => process.stderr.write(`${line}\n`);

/** CoNLL-2000 in CRFsuite's format, and the gold labels of the test file. */
function convert(name: string): { file: string; gold: string[][] } {
  const sentences = loadConll(dataPath('conll2000', name));
  const file = join(dir, name.replace('.txt', '.crf'));
  writeFileSync(file, sentences.map((s) => `${conllAttributes(s.words, s.pos).map((a, t) => formatAttributeLine(s.chunks![t]!, a)).join('\n')}\n\n`).join(''));
  return { file, gold: sentences.map((s) => s.chunks!) };
}

/** Runs a command under /usr/bin/time: whole-process CPU and wall seconds, and its stdout. */
function timed(command: string, args: string[]): { cpu: number; wall: number; stdout: string } {
  const timeFile = join(dir, 'time');
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S %e', '-o', timeFile, command, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const [user, sys, wall] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { cpu: user! + sys!, wall: wall!, stdout: r.stdout };
}

/** Chunk F1 and token accuracy of a file of predicted labels (one per line, a blank line per sequence). */
function score(file: string, gold: string[][]): { f1: number; accuracy: number } {
  const predicted = readFileSync(file, 'utf8').split('\n\n').filter((b) => b.trim() !== '').map((b) => b.split('\n').filter((l) => !l.startsWith('@')));
  const s = sequenceScores(gold, predicted);
  return { f1: s.spans!.f1, accuracy: s.accuracy };
}

const lastJson = (text: string) => JSON.parse(text.trim().split('\n').at(-1)!);

const train = convert('train.txt');
const test = convert('test.txt');
const labels = [...new Set(test.gold.flat().concat(train.gold.flat()))].filter((l) => !train.gold.some((s) => s.includes(l)));
const crfsuite = execFileSync('python3', ['-c', 'import pycrfsuite, sys; sys.stdout.write(pycrfsuite.__version__ if hasattr(pycrfsuite, "__version__") else "?")'], { encoding: 'utf8' });
const rows: Record<string, unknown>[] = [];
for (let round = 0; round < rounds; round++) {
  for (const gap of gaps) {
    const model = join(dir, `g-${gap}.gbm`);
    const t = timed('node', [cliPath, 'train', `seq:${train.file}`, '--min-frequency', '3', ...(labels.length ? ['--labels', labels.join(',')] : []), '--lambda', '1e-2', '--gap-threshold', String(gap), '--max-passes', '200', '--threads', '1', '--out', model, '--json', '--quiet']);
    const summary = lastJson(t.stdout);
    const out = join(dir, 'g-pred.txt');
    const p = timed('node', [cliPath, 'predict', model, `seq:${test.file}`, '--threads', '1', '--out', out, '--quiet']);
    const row = { tool: 'gapbcfw', round, gapThreshold: gap, gap: summary.gap, passes: summary.passes, trainCpu: t.cpu, trainWall: t.wall, oracleCallsPerSecond: summary.oracleCallsPerSecond, tagCpu: p.cpu, tagWall: p.wall, ...score(out, test.gold) };
    say(JSON.stringify(row));
    rows.push(row);
  }
  for (const k of [...iterations, 0]) {
    const model = join(dir, `c-${k}.crfsuite`);
    const t = timed('python3', [peer, 'train', train.file, model, ...(k > 0 ? [String(k)] : [])]);
    const summary = lastJson(t.stdout);
    const out = join(dir, 'c-pred.txt');
    const p = timed('python3', [peer, 'tag', model, test.file, out]);
    const row = { tool: 'crfsuite', round, maxIterations: k > 0 ? k : 'default', iterations: summary.iterations, trainCpu: summary.trainCpu, processCpu: t.cpu, readSeconds: summary.readSeconds, tagCpu: p.cpu, tagWall: p.wall, ...score(out, test.gold) };
    say(JSON.stringify(row));
    rows.push(row);
  }
}
process.stdout.write(`${JSON.stringify({ benchmark: 'crfsuite', crfsuite: `python-crfsuite ${crfsuite}`, loadavg: loadavg(), rows })}\n`);
