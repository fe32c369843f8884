import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/cli/main.js';
import { commandHelp } from '../src/cli/args.js';
import { loadModel } from '../src/tasks/model.js';
import { dataPath } from '../src/data/paths.js';
import { cli } from './helpers/capture.js';
import { writeTinyLibsvm, writeTinyWeizmann } from './helpers/tiny-data.js';
import { needsData } from './helpers/skips.js';

const run = cli;

const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-cli-'));

describe('gapbcfw CLI', () => {
  it('demo --json ends with a JSON summary carrying an exact gap', async () => {
    const r = await run('demo', '--json');
    expect(r.code).toBe(0);
    expect(r.json).toBeDefined();
    for (const key of ['passes', 'effectivePasses', 'oracleCalls', 'seconds', 'primal', 'dual', 'gap', 'testError']) expect(typeof r.json![key]).toBe('number');
    expect(r.json!.gapIsExact).toBe(true);
    expect(r.json!.gap as number).toBeLessThanOrEqual(0.1);
    expect(r.stderr).toMatch(/gap/); // progress went to stderr
  });

  it('train writes model and trace; eval on the training set recovers the exact gap', async () => {
    const model = join(dir, 'm.gbm');
    const trace = join(dir, 't.jsonl');
    const t = await run('train', 'synthetic:', '--lambda', '0.05', '--max-passes', '20', '--gap-threshold', '0', '--out', model, '--trace', trace, '--json', '--quiet');
    expect(t.code).toBe(0);
    const lines = readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { pass: number; gapIsExact: boolean });
    expect(lines.filter((e) => e.gapIsExact).map((e) => e.pass)).toEqual([10, 20]);
    expect(loadModel(model).spec.kind).toBe('chain');
    const onTrain = await run('eval', model, 'synthetic:', '--part', 'train', '--json');
    expect(onTrain.code).toBe(0);
    expect(onTrain.json!.gap as number).toBeCloseTo(t.json!.gap as number, 10);
    const onTest = await run('eval', model, 'synthetic:', '--json');
    expect(onTest.json!.testError as number).toBeCloseTo(t.json!.testError as number, 12);
    expect(onTest.json!.gap).toBeUndefined(); // no dual for data it was not trained on
  });

  it('a run resumed from its checkpoint ends where the uninterrupted run ends', async () => {
    const ck = join(dir, 'ck.gbm');
    const common = ['synthetic:', '--lambda', '0.05', '--gap-threshold', '0', '--sampling', 'perm', '--json', '--quiet'];
    const full = await run('train', ...common, '--max-passes', '12');
    const first = await run('train', ...common, '--max-passes', '5', '--checkpoint', ck);
    expect(first.code).toBe(0);
    const resumed = await run('train', ...common, '--max-passes', '12', '--resume', ck);
    expect(resumed.code).toBe(0);
    for (const key of ['passes', 'primal', 'dual', 'gap', 'testError']) expect(resumed.json![key]).toBe(full.json![key]);
  });

  it('the Minding-the-Gaps variants run from the CLI', async () => {
    const r = await run('train', 'synthetic:', '--solver', 'bcpfw', '--sampling', 'gap', '--cache', '--cache-size', '20', '--gap-threshold', '0.01', '--json', '--quiet');
    expect(r.code).toBe(0);
    expect(r.json!.solver).toBe('bcpfw');
    expect(r.json!.sampling).toBe('gap');
    expect(r.json!.cacheHits as number).toBeGreaterThan(0);
    expect(r.json!.gap as number).toBeLessThanOrEqual(0.01);
    for (const solver of ['bcafw', 'hybrid']) expect((await run('train', 'synthetic:', '--solver', solver, '--max-passes', '3', '--quiet')).code).toBe(0);
  });

  it('batch FW and SSG run from the CLI', async () => {
    const f = await run('train', 'synthetic:', '--solver', 'fw', '--max-passes', '5', '--json', '--quiet');
    expect(f.code).toBe(0);
    expect(f.json!.solver).toBe('fw');
    const s = await run('train', 'synthetic:', '--solver', 'ssg', '--max-passes', '3', '--json', '--quiet');
    expect(s.code).toBe(0);
    expect(s.json!.gap).toBeUndefined();
    expect(typeof s.json!.primal).toBe('number');
  });

  it.each([
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['train'], /train takes DATA, got nothing/],
    [['train', 'nope:x'], /KIND:PATH/],
    [['train', 'synthetic:', '--lambda=-1'], /--lambda must be a number from 1e-12 to 1e12, got '-1'/],
    [['train', 'synthetic:', '--lambda', '-1'], /--lambda must be a number from 1e-12 to 1e12, got '-1'/],
    [['train', 'synthetic:', '--lambda', '1e-150'], /--lambda must be a number from 1e-12 to 1e12, got '1e-150'/],
    [['train', 'synthetic:', '--lambda', 'abc'], /--lambda must be a number/],
    [['train', 'synthetic:', '--seed', '4294967296'], /--seed must be an integer from 0 to 4294967295, got '4294967296'/],
    [['train', 'synthetic:', '--max-passes', '-5'], /--max-passes must be an integer from 0 to 1e9, got '-5'/],
    [['train', 'synthetic:', '--max-passes', '2.5'], /--max-passes/],
    [['train', 'synthetic:', '--time-budget', '0'], /--time-budget must be a positive number/],
    [['train', 'synthetic:', '--solver', 'magic'], /--solver must be one of/],
    [['train', 'synthetic:', '--bogus'], /unknown option '--bogus' for train/],
    [['train', 'synthetic:', '--out'], /--out needs a value/],
    [['train', 'synthetic:', '--quiet', '--quiet'], /--quiet is given twice/],
    [['train', 'ocr:/nonexistent/letter.data'], /nonexistent/],
    [['train', 'libsvm:x', '--split', 'small'], /--split applies to ocr and lsp data, not libsvm/],
    [['train', 'synthetic:', '--min-frequency', '2'], /--min-frequency applies to conll, seq and conll-columns data, not synthetic/],
    [['train', 'synthetic:', '--stream'], /--stream and --in-memory apply to horse data/],
    [['train', 'synthetic:', '--test', 'synthetic:'], /--test does not apply to synthetic data/],
    [['eval', '/nonexistent.gbm', 'synthetic:'], /nonexistent/],
    [['train', 'synthetic:', '--solver', 'fw', '--cache'], /--cache applies/],
    [['train', 'synthetic:', '--solver', 'fw', '--averaging'], /--averaging does not apply to batch FW/],
    [['train', 'synthetic:', '--solver', 'fw', '--no-averaging'], /--no-averaging does not apply to batch FW/],
    [['train', 'synthetic:', '--cache-size', '5'], /need --cache/],
    [['train', 'synthetic:', '--sampling', 'gap', '--averaging'], /averaging/],
    [['train', 'synthetic:', '--sampling', 'sometimes'], /--sampling must be one of uniform, perm, gap/],
    [['path', 'synthetic:', '--lambda', '1'], /unknown option '--lambda' for path/],
    [['train-horse', 'horse:x'], /train-horse was replaced by gapbcfw train horse:DIR/],
    [['pose', 'train', 'lsp:x'], /pose was replaced by gapbcfw train lsp:DIR/],
    [['align', 'train', 'alignment:x'], /align train was replaced by gapbcfw train alignment:DIR/],
    [['help', 'nope'], /unknown command 'nope'/],
  ])('bad usage %j exits 2 with a one-line reason', async (argv, message) => {
    const r = await run(...(argv as string[]));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a corrupt model file is a clear error', async () => {
    const model = join(dir, 'ok.gbm');
    await run('train', 'synthetic:', '--max-passes', '1', '--out', model, '--quiet');
    const bytes = readFileSync(model);
    bytes[bytes.length - 20]! ^= 0xff;
    writeFileSync(join(dir, 'bad.gbm'), bytes);
    const r = await run('eval', join(dir, 'bad.gbm'), 'synthetic:');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/CRC|corrupt/);
  });

  it('help: the command list, and each command options generated from its table (help COMMAND = COMMAND --help); version', async () => {
    const all = await run('help');
    expect(all.stdout).toMatch(/Usage: gapbcfw <command>/);
    for (const c of COMMANDS) {
      expect(all.stdout).toContain(c.name);
      const h = await run('help', c.name);
      expect(h.code).toBe(0);
      expect(h.stdout).toBe(`${commandHelp(c)}\n`);
      expect((await run(c.name, '--help')).stdout).toBe(h.stdout);
      for (const o of c.options) expect(h.stdout, `${c.name} --${o.name}`).toMatch(new RegExp(`--${o.name}(?![a-z-])`));
    }
    expect((await run('help', 'path')).stdout).toMatch(/--epsilon X +every piece is epsilon-approximate/);
    expect((await run('help', 'tag')).stdout).toMatch(/Usage: gapbcfw predict MODEL \[INPUT\]/);
    expect((await run('--version')).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('trains on OCR-small from the CLI', needsData('ocr', 'letter.data.gz'), async () => {
    const r = await run('train', `ocr:${dataPath('ocr', 'letter.data.gz')}`, '--split', 'small', '--lambda', '0.01', '--max-passes', '10', '--json', '--quiet');
    expect(r.code).toBe(0);
    expect(r.json!.n).toBe(626);
    expect(r.json!.dim).toBe(4082);
    expect(r.json!.testError as number).toBeLessThan(0.35);
  });
});

describe('gapbcfw path', () => {
  it('computes a path, stores it, and eval queries it at any lambda', async () => {
    const file = join(dir, 'p.gbp');
    const r = await run('path', 'synthetic:', '--epsilon', '0.2', '--min-lambda', '0.01', '--out', file, '--json', '--quiet');
    expect(r.code).toBe(0);
    expect(r.json!.breakpoints as number).toBeGreaterThan(1);
    const points = r.json!.points as { lambda: number; gap: number; testError: number }[];
    for (const p of points) expect(p.gap).toBeLessThanOrEqual(0.9 * 0.2);
    const mid = points[1]!.lambda;
    const e = await run('eval', file, 'synthetic:', '--lambda', String(mid), '--json');
    expect(e.code).toBe(0);
    expect(e.json!.testError as number).toBeCloseTo(points[1]!.testError, 12);
    expect((await run('eval', file, 'synthetic:')).stderr).toMatch(/--lambda/);
    const g = await run('path', 'synthetic:', '--grid', '--epsilon', '0.5', '--time-budget', '20', '--json', '--quiet');
    expect(g.code).toBe(0);
    expect((g.json!.points as unknown[]).length).toBeGreaterThan(3);
    expect((await run('path', 'synthetic:', '--lambda', '1')).code).toBe(2);
  });
});

describe('gapbcfw on CoNLL-2000', needsData('conll2000', 'train.txt'), () => {
  it('trains on a subset, reports F1, tags a file', async () => {
    const model = join(dir, 'conll.gbm');
    const r = await run('train', `conll:${dataPath('conll2000')}`, '--limit', '200', '--lambda', '0.01', '--max-passes', '10', '--out', model, '--json', '--quiet');
    expect(r.code).toBe(0);
    expect(r.json!.f1 as number).toBeGreaterThan(0.75);
    const input = join(dir, 'in.txt');
    writeFileSync(input, 'He PRP\nreckons VBZ\nthe DT\ncurrent JJ\naccount NN\ndeficit NN\n\n');
    const tagged = await run('predict', model, input);
    expect(tagged.code).toBe(0);
    const lines = tagged.stdout.trim().split('\n');
    expect(lines).toHaveLength(6);
    for (const line of lines) expect(line.split(/\s+/).at(-1)).toMatch(/^(B|I)-[A-Z]+$|^O$/);
  });
});

describe('gapbcfw gap and gap-merge', () => {
  it('shards merged equal one pass exactly, and match the trained gap', async () => {
    const model = join(dir, 'g.gbm');
    const t = await run('train', 'synthetic:', '--lambda', '0.05', '--max-passes', '10', '--gap-threshold', '0', '--out', model, '--json', '--quiet');
    const whole = await run('gap', model, 'synthetic:', '--json');
    expect(whole.code).toBe(0);
    expect(whole.json!.gap as number).toBeCloseTo(t.json!.gap as number, 10);
    const parts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const part = join(dir, `part-${i}.json`);
      parts.push(part);
      expect((await run('gap', model, 'synthetic:', '--shard', `${i}/3`, '--out', part, '--quiet')).code).toBe(0);
    }
    const merged = await run('gap-merge', parts[2]!, parts[0]!, parts[1]!, '--json');
    expect(merged.code).toBe(0);
    for (const key of ['primal', 'dual', 'gap', 'trainError', 'n']) expect(merged.json![key]).toBe(whole.json![key]);
    expect((await run('gap-merge', parts[0]!, parts[1]!)).stderr).toMatch(/missing shards/);
    expect((await run('gap-merge', parts[0]!, parts[0]!, parts[1]!)).stderr).toMatch(/twice/);
    expect((await run('gap', model, 'synthetic:', '--shard', '3/3', '--out', parts[0]!)).code).toBe(2);
    const test = await run('gap', model, 'synthetic:', '--part', 'test', '--json');
    expect(test.json!.gap).toBeUndefined(); // no dual for data the model was not trained on
    expect(typeof test.json!.testError).toBe('number');
  });

  it('N shard processes running at once (as a job array would), merged, equal one pass', async () => {
    const model = join(dir, 'p.gbm');
    expect((await run('train', 'synthetic:', '--lambda', '0.02', '--max-passes', '8', '--out', model, '--quiet')).code).toBe(0);
    const whole = await run('gap', model, 'synthetic:', '--json');
    const root = fileURLToPath(new URL('..', import.meta.url));
    const N = 4;
    const parts = Array.from({ length: N }, (_, i) => join(dir, `proc-part-${i}.json`));
    // The shard index comes from the environment, like SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX.
    const codes = await Promise.all(
      parts.map(
        (part, i) =>
          new Promise<number | null>((done) => {
            // like a Slurm array task: the shell expands the index from the environment
            const cli = `"${process.execPath}" --import tsx "${join(root, 'src/cli/main.ts')}"`;
            const child = spawn('sh', ['-c', `${cli} gap "${model}" synthetic: --shard "$TASK_INDEX/${N}" --out "${part}" --quiet`], {
              cwd: root,
              env: { ...process.env, TASK_INDEX: String(i) },
              stdio: 'ignore',
            });
            child.on('exit', done);
          }),
      ),
    );
    expect(codes).toEqual(new Array(N).fill(0));
    const merged = await run('gap-merge', ...parts, '--json');
    for (const key of ['primal', 'dual', 'gap', 'trainError', 'n']) expect(merged.json![key]).toBe(whole.json![key]);
  });
});

describe('gapbcfw plot --x lambda (path against grid search)', () => {
  it('draws the rows of gapbcfw path --trace', async () => {
    const pathRows = join(dir, 'path-rows.jsonl');
    const gridRows = join(dir, 'grid-rows.jsonl');
    expect((await run('path', 'synthetic:', '--epsilon', '0.3', '--min-lambda', '0.05', '--trace', pathRows, '--quiet')).code).toBe(0);
    expect((await run('path', 'synthetic:', '--grid', '--epsilon', '0.5', '--time-budget', '10', '--trace', gridRows, '--quiet')).code).toBe(0);
    const rows = readFileSync(pathRows, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { method: string; lambda: number; testError: number });
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.every((r) => r.method === 'exact path' && r.lambda > 0 && typeof r.testError === 'number')).toBe(true);
    for (const y of ['testError', 'effectivePasses', 'seconds']) {
      const fig = join(dir, `lambda-${y}.svg`);
      const r = await run('plot', pathRows, gridRows, '--x', 'lambda', '--y', y, '--out', fig, '--json');
      expect(r.code).toBe(0);
      expect(r.json!.methods).toEqual(['exact path', 'grid, keep-primal']);
      expect(readFileSync(fig, 'utf8')).toMatch(/lambda \(decreasing\)/);
    }
    expect((await run('plot', pathRows, '--x', 'lambda', '--y', 'primal')).code).toBe(2);
    writeFileSync(join(dir, 'bad-rows.jsonl'), '{"method":"x"}\n');
    expect((await run('plot', join(dir, 'bad-rows.jsonl'), '--x', 'lambda')).stderr).toMatch(/bad-rows.jsonl:1/);
  });
});

describe('outputs are checked before any work starts (issue 18, items 2 and 3)', () => {
  const out = mkdtempSync(join(tmpdir(), 'gapbcfw-outputs-'));
  const svm = writeTinyLibsvm(out);
  const data = svm.train.slice('libsvm:'.length);
  const fails = async (message: RegExp, ...argv: string[]) => {
    const r = await run(...argv);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  };

  it('train: a missing folder, a folder for a file, --checkpoint = --out, an output that is the data; nothing is written', async () => {
    const trace = join(out, 'never.jsonl');
    await fails(/--out \/nonexistent\/x.gbm: the folder \/nonexistent does not exist/, 'train', svm.train, '--out', '/nonexistent/x.gbm', '--trace', trace);
    await fails(/--out .*: is a folder/, 'train', svm.train, '--out', out, '--trace', trace);
    await fails(/--checkpoint .*same\.gbm: the same file as --out/, 'train', svm.train, '--out', join(out, 'same.gbm'), '--checkpoint', join(out, 'same.gbm'), '--trace', trace);
    await fails(/--out .*tiny\.svm: is an input of this command/, 'train', svm.train, '--out', data, '--trace', trace);
    await fails(/--trace .*tiny\.svm: is an input of this command/, 'train', svm.train, '--trace', data);
    await fails(/--out .*tiny\.svm\.t: is an input of this command/, 'train', svm.train, '--test', svm.test, '--out', `${data}.t`);
    expect(existsSync(trace)).toBe(false);
    expect(readFileSync(data, 'utf8').startsWith('1 1:')).toBe(true); // the data is untouched
  });

  it('--resume and --checkpoint may name one file (the run continues and keeps checkpointing there)', async () => {
    const ck = join(out, 'ck.gbc');
    // --gap-threshold 0: the run goes on to its cap (exact steps would stop on the default threshold after pass 3);
    // --no-shrinking: every pass then counts whole towards the cap.
    expect((await run('train', svm.train, '--max-passes', '2', '--gap-threshold', '0', '--no-shrinking', '--checkpoint', ck, '--quiet')).code).toBe(0);
    const r = await run('train', svm.train, '--max-passes', '4', '--gap-threshold', '0', '--no-shrinking', '--resume', ck, '--checkpoint', ck, '--json', '--quiet');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json!.passes).toBe(4);
  });

  it('the other commands: eval/gap/path/predict/plot/maxflow/multiclass-fw/prepare-horse outputs', async () => {
    const model = join(out, 'm.gbm');
    expect((await run('train', svm.train, '--max-passes', '2', '--out', model, '--quiet')).code).toBe(0);
    await fails(/--out .*m\.gbm: is an input/, 'gap', model, svm.train, '--out', model);
    await fails(/--out \/nonexistent\/p.gbp: the folder/, 'path', svm.train, '--out', '/nonexistent/p.gbp');
    await fails(/--trace .*tiny\.svm: is an input/, 'path', svm.train, '--trace', data);
    await fails(/--out .*tiny\.svm: is an input/, 'predict', model, svm.train, '--out', data);
    await fails(/--out .*m\.gbm: is an input/, 'predict', model, svm.train, '--out', model);
    await fails(/--out \/nonexistent\/w.gbm: the folder/, 'multiclass-fw', svm.train, '--tau', '1', '--out', '/nonexistent/w.gbm');
    const trace = join(out, 't.jsonl');
    expect((await run('train', svm.train, '--max-passes', '2', '--trace', trace, '--quiet')).code).toBe(0);
    await fails(/--out .*t\.jsonl: is an input/, 'plot', trace, '--out', trace);
    await fails(/--out-dir .*m\.gbm: exists and is not a folder/, 'predict', model, 'horse:/nonexistent', '--out-dir', model);
    const weizmann = join(out, 'weizmann');
    await writeTinyWeizmann(weizmann, 2);
    await fails(/--out .*m\.gbm: exists and is not a folder/, 'prepare-horse', weizmann, '--out', model);
    writeFileSync(join(out, 'g.max'), 'p max 2 1\nn 1 s\nn 2 t\na 1 2 3\n');
    await fails(/--cut .*g\.max: is an input/, 'maxflow', join(out, 'g.max'), '--cut', join(out, 'g.max'));
  });
});
