// The small things of a first hour with the CLI (issue 34): typos get a suggestion, --version works after a command,
// summaries print integers exactly, and word alignment's loss is called a loss.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { didYouMean } from '../src/cli/args.js';
import { report } from '../src/cli/common.js';
import { cli } from './helpers/capture.js';
import { writeTinyHansards } from './helpers/tiny-data.js';

const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-usability-'));

describe('did you mean', () => {
  it.each([
    [['trian'], "unknown command 'trian' (did you mean train? gapbcfw help lists them)"],
    [['evl', 'x.gbm'], "unknown command 'evl' (did you mean eval? gapbcfw help lists them)"],
    [['help', 'predcit'], "unknown command 'predcit' (did you mean predict? gapbcfw help lists them)"],
    [['train', 'synthetic:', '--lamda', '0.1'], "unknown option '--lamda' for train (did you mean --lambda? gapbcfw help train lists its options)"],
    [['train', 'synthetic:', '--max-pass', '3'], "unknown option '--max-pass' for train (did you mean --max-passes? gapbcfw help train lists its options)"],
    [['demo', '--thread', '2'], "unknown option '--thread' for demo (did you mean --threads? gapbcfw help demo lists its options)"],
    [['demo', '--verison'], "unknown option '--verison' for demo (did you mean --version? gapbcfw help demo lists its options)"],
    [['frobnicate'], "unknown command 'frobnicate' (gapbcfw help lists them)"],
    [['train', 'synthetic:', '--bogus'], "unknown option '--bogus' for train (gapbcfw help train lists its options)"],
  ])('gapbcfw %j', async (argv, message) => {
    const r = await cli(...argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`gapbcfw: ${message}\n`);
  });

  it('suggests only what is close: one edit in short names, two up to 8 letters, or a name the typo begins', () => {
    expect(didYouMean('sed', ['seed', 'split'])).toBe('seed');
    expect(didYouMean('xyz', ['seed', 'split'])).toBeUndefined();
    expect(didYouMean('gapcheck', ['gap-check', 'gap-threshold'])).toBe('gap-check');
    expect(didYouMean('checkpoint-ev', ['checkpoint', 'checkpoint-every'])).toBe('checkpoint-every');
  });
});

describe('--version', () => {
  it('works before and after a command, and not after --', async () => {
    const before = await cli('--version');
    expect(before.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    for (const argv of [['train', '--version'], ['train', 'synthetic:', '--version'], ['demo', '--version']]) {
      const r = await cli(...argv);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(before.stdout);
    }
    expect((await cli('train', '--', '--version')).code).toBe(2); // a positional: no such data set
  });
});

describe('summaries', () => {
  it('print integers exactly (CoNLL: dim 1732199, not 1732200) and other numbers to 6 digits', () => {
    let out = '';
    report({ dim: 1_732_199, gap: 0.0123456789 }, false, { stdout: { write: (s: string) => ((out += s), true) } as never }, 'head');
    expect(out).toBe('head\n  dim: 1732199\n  gap: 0.0123457\n');
  });

  it("word alignment's loss is testLoss (testError is kept in --json as an alias; not in the human summary)", async () => {
    const data = writeTinyHansards(dir);
    const model = join(dir, 'align.gbm');
    const json = await cli('train', data, '--folds', '2', '--fold', '0', '--max-passes', '5', '--out', model, '--json', '--quiet');
    expect(json.code, json.stderr).toBe(0);
    expect(json.json!.testLoss).toEqual(expect.any(Number));
    expect(json.json!.testError).toBe(json.json!.testLoss);
    const human = await cli('eval', model, data, '--folds', '2', '--fold', '0');
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/\n {2}testLoss: /);
    expect(human.stdout).not.toMatch(/testError/);
    const ocr = await cli('demo', '--max-passes', '2', '--json', '--quiet');
    expect(ocr.json!.testError).toEqual(expect.any(Number));
    expect(ocr.json!.testLoss).toBeUndefined();
  });
});
