// The real data sets the real-data tests read ($GAPBCFW_DATA, default ../shared/data). Without them those
// tests are skipped; `.ci/run` sets GAPBCFW_REQUIRE_DATA=1, and then a missing data set fails here instead.
import { describe, expect, it } from 'vitest';
import { dataRoot, hasData } from '../src/data/paths.js';
import { unless } from './helpers/skips.js';

const REQUIRED: string[][] = [
  ['ocr', 'letter.data.gz'],
  ['conll2000', 'train.txt'],
  ['conll2000', 'test.txt'],
  ['lsp', 'joints.mat'],
  ['lsp', 'images', 'im2000.jpg'],
  ['weizmann_horse', 'weizmann_horse_db', 'rgb'],
  ['word_alignment_hansards', 'test', 'test.align'],
  ['word_alignment_hansards', 'trial', 'trial.align'],
  ['multiclass', 'dna', 'dna.scale'],
  ['multiclass', 'pendigits', 'pendigits.scale'],
  ['multiclass', 'fashion_mnist_test'],
];

describe('real data required (GAPBCFW_REQUIRE_DATA=1)', unless(process.env.GAPBCFW_REQUIRE_DATA === '1', 'runs under GAPBCFW_REQUIRE_DATA=1 (.ci/run) only'), () => {
  it(`every data set of the real-data tests is under ${dataRoot()}`, () => {
    expect(REQUIRED.filter((p) => !hasData(...p)).map((p) => p.join('/'))).toEqual([]);
  });
});
