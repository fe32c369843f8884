import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { capture } from './helpers/capture.js';
import { loadModel } from '../src/io/model.js';
import { dataPath, hasData } from '../src/data/paths.js';

const run = (...argv: string[]) => capture(main, argv);

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
    [['frobnicate'], /unknown command/],
    [['train'], /one data set/],
    [['train', 'nope:x'], /KIND:PATH/],
    [['train', 'synthetic:', '--lambda=-1'], /--lambda must be a positive number/],
    [['train', 'synthetic:', '--lambda', 'abc'], /--lambda must be a positive number/],
    [['train', 'synthetic:', '--max-passes', '2.5'], /--max-passes/],
    [['train', 'synthetic:', '--solver', 'magic'], /--solver must be one of/],
    [['train', 'synthetic:', '--bogus'], /Unknown option/],
    [['train', 'ocr:/nonexistent/letter.data'], /nonexistent/],
    [['train', 'libsvm:x', '--split', 'small'], /--split applies to ocr/],
    [['eval', '/nonexistent.gbm', 'synthetic:'], /nonexistent/],
    [['train', 'synthetic:', '--solver', 'fw', '--cache'], /--cache applies/],
    [['train', 'synthetic:', '--cache-size', '5'], /need --cache/],
    [['train', 'synthetic:', '--sampling', 'gap', '--averaging'], /averaging/],
    [['train', 'synthetic:', '--sampling', 'sometimes'], /--sampling must be/],
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

  it('help and version', async () => {
    expect((await run('help')).stdout).toMatch(/Usage: gapbcfw/);
    expect((await run('--version')).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it.skipIf(!hasData('ocr', 'letter.data.gz'))('trains on OCR-small from the CLI', async () => {
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

describe.skipIf(!hasData('conll2000', 'train.txt'))('gapbcfw on CoNLL-2000', () => {
  it('trains on a subset, reports F1, tags a file', async () => {
    const model = join(dir, 'conll.gbm');
    const r = await run('train', `conll:${dataPath('conll2000')}`, '--limit', '200', '--lambda', '0.01', '--max-passes', '10', '--out', model, '--json', '--quiet');
    expect(r.code).toBe(0);
    expect(r.json!.f1 as number).toBeGreaterThan(0.75);
    const input = join(dir, 'in.txt');
    writeFileSync(input, 'He PRP\nreckons VBZ\nthe DT\ncurrent JJ\naccount NN\ndeficit NN\n\n');
    const tagged = await run('tag', model, input);
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
