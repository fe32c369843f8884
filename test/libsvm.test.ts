import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MulticlassDataset } from '../src/core/data.js';
import { InputError } from '../src/core/errors.js';
import { loadLibsvm, parseLibsvm } from '../src/data/libsvm.js';
import { dataPath, hasData } from '../src/data/paths.js';
import { expectFormatError } from './helpers/errors.js';
import { needsData } from './helpers/skips.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/bad/', import.meta.url));

/** Dense copy of CSR row r (for readable assertions). */
function denseRow(d: MulticlassDataset, r: number): number[] {
  const out = new Array<number>(d.X.cols).fill(0);
  for (let k = d.X.indptr[r]!; k < d.X.indptr[r + 1]!; k++) out[d.X.indices[k]!] = d.X.values[k]!;
  return out;
}


let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'gapbcfw-libsvm-'));
});
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

describe('parseLibsvm', () => {
  const text = [
    '# header comment',
    '3 1:0.5 4:-2e-1   7:3',
    '',
    '-1 2:1.25 # trailing comment',
    '10 qid:4 1:1 3:.5',
    '3',
    '   -1\t5:7e2\t6:+1  ',
  ].join('\n');

  it('reads values, converts to 0-based CSR and maps labels in numeric order', () => {
    const d = parseLibsvm(text);
    expect(d.X.rows).toBe(5);
    expect(d.X.cols).toBe(7);
    expect(d.labelNames).toEqual(['-1', '3', '10']); // numeric, not lexicographic order
    expect(d.numLabels).toBe(3);
    expect(Array.from(d.y)).toEqual([1, 0, 2, 1, 0]);
    expect(Array.from(d.X.indptr)).toEqual([0, 3, 4, 6, 6, 8]);
    expect(Array.from(d.X.indices)).toEqual([0, 3, 6, 1, 0, 2, 4, 5]);
    expect(Array.from(d.X.values)).toEqual([0.5, -0.2, 3, 1.25, 1, 0.5, 700, 1]);
    expect(denseRow(d, 0)).toEqual([0.5, 0, 0, -0.2, 0, 0, 3]);
    expect(denseRow(d, 3)).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(d.X.indptr).toBeInstanceOf(Int32Array);
    expect(d.X.indices).toBeInstanceOf(Int32Array);
    expect(d.X.values).toBeInstanceOf(Float64Array);
    expect(d.y).toBeInstanceOf(Int32Array);
  });

  it('treats +1, 1 and 1.0 as one class and keeps the first spelling', () => {
    const d = parseLibsvm('+1 1:1\n-1 1:2\n1 2:1\n1.0 1:1\n');
    expect(d.labelNames).toEqual(['-1', '+1']);
    expect(Array.from(d.y)).toEqual([1, 0, 1, 1]);
  });

  it('uses a fixed feature count and label mapping', () => {
    const d = parseLibsvm('2 1:1\n2 3:1\n', { numFeatures: 10, labelNames: ['1', '2', '3'] });
    expect(d.X.cols).toBe(10);
    expect(d.numLabels).toBe(3);
    expect(d.labelNames).toEqual(['1', '2', '3']);
    expect(Array.from(d.y)).toEqual([1, 1]);
  });

  it('drops features beyond numFeatures only when asked', () => {
    expectFormatError(() => parseLibsvm('1 1:1 5:2\n1 2:1 6:1\n', { numFeatures: 5 }, 'f.txt'), 2, /feature index 6 exceeds numFeatures = 5/);
    const d = parseLibsvm('1 1:1 5:2\n1 2:1 6:1 9:1\n', { numFeatures: 5, dropUnknownFeatures: true });
    expect(d.X.cols).toBe(5);
    expect(Array.from(d.X.indices)).toEqual([0, 4, 1]);
    expect(Array.from(d.X.indptr)).toEqual([0, 2, 3]);
  });

  it('rejects invalid options', () => {
    expect(() => parseLibsvm('1 1:1', { numFeatures: -1 })).toThrow(InputError);
    expect(() => parseLibsvm('1 1:1', { labelNames: ['1', '1.0'] })).toThrow(/duplicates/);
    expect(() => parseLibsvm('1 1:1', { labelNames: ['cat'] })).toThrow(InputError);
  });

  const bad: [string, string, number, RegExp, object?][] = [
    ['missing colon', '1 1:1\n2 3:1 4\n', 2, /missing ':'/],
    ['index 0', '1 1:1\n# c\n1 0:1 2:1\n', 3, /index 0.*1-based/],
    ['negative index', '1 -3:1\n', 1, /not a positive integer/],
    ['non-integer index', '1 1.5:1\n', 1, /not a positive integer/],
    ['unsorted indices', '1 1:1\n1 2:1\n1 3:1 2:1\n', 3, /strictly increasing: 2 comes after 3/],
    ['duplicate index', '1 2:1 2:1\n', 1, /duplicate feature index 2/],
    ['NaN value', '1 1:1\n1 1:NaN\n', 2, /not finite/],
    ['Inf value', '1 1:inf\n', 1, /not finite/],
    ['overflowing value', '1 1:1e999\n', 1, /not finite/],
    ['non-numeric value', '1 1:abc\n', 1, /not a number/],
    ['empty value', '1 1:\n', 1, /not a number/],
    ['non-numeric label', '1 1:1\ncat 1:1\n', 2, /label "cat" is not a number/],
    ['NaN label', 'nan 1:1\n', 1, /not finite/],
    ['missing label', '1:1 2:1\n', 1, /missing label/],
    ['multi-label', '1,2 1:1\n', 1, /multi-label/],
    ['unknown label with fixed mapping', '1 1:1\n4 1:1\n', 2, /unknown label "4"/, { labelNames: ['1', '2', '3'] }],
    ['empty input', '# only a comment\n\n', 2, /no examples/],
  ];
  for (const [name, input, line, re, opts] of bad) {
    it(`rejects: ${name} (line ${line})`, () => {
      const e = expectFormatError(() => parseLibsvm(input, opts ?? {}, 'input.txt'), line, re);
      expect(e.file).toBe('input.txt');
    });
  }
});

describe('loadLibsvm', () => {
  const text = '2 1:0.5 3:1\n1 2:2\n';
  function check(d: MulticlassDataset): void {
    expect(d.X.rows).toBe(2);
    expect(d.X.cols).toBe(3);
    expect(d.labelNames).toEqual(['1', '2']);
    expect(Array.from(d.y)).toEqual([1, 0]);
    expect(denseRow(d, 0)).toEqual([0.5, 0, 1]);
  }

  it('reads plain and gzip files (gzip detected by magic bytes, not by name)', () => {
    const plain = join(tmp, 'x.txt');
    writeFileSync(plain, text);
    check(loadLibsvm(plain));
    const gz = join(tmp, 'x-compressed.txt');
    writeFileSync(gz, gzipSync(text));
    check(loadLibsvm(gz));
  });

  it('names the file in errors; truncated gzip is a FormatError', () => {
    const p = join(tmp, 'bad.txt');
    writeFileSync(p, '1 1:1\n1 1:x\n');
    const e = expectFormatError(() => loadLibsvm(p), 2);
    expect(e.message.startsWith(`${p}:2: `)).toBe(true);
    const gz = gzipSync(text.repeat(50));
    const t = join(tmp, 'trunc.gz');
    writeFileSync(t, gz.subarray(0, gz.length - 10));
    expectFormatError(() => loadLibsvm(t), undefined, /corrupt or truncated gzip/);
  });

  it('reports a missing file as an InputError', () => {
    expect(() => loadLibsvm(join(tmp, 'nope.txt'))).toThrow(InputError);
  });

  describe('fixture files', () => {
    const fx: [string, number, RegExp][] = [
      ['libsvm-unsorted.txt', 2, /strictly increasing: 4 comes after 5/],
      ['libsvm-missing-colon.txt', 4, /missing ':'/],
      ['libsvm-nan.txt', 3, /not finite/],
    ];
    for (const [name, line, re] of fx) {
      it(name, () => {
        const p = join(FIXTURES, name);
        expect(readFileSync(p).length).toBeGreaterThan(0);
        expectFormatError(() => loadLibsvm(p), line, re);
      });
    }
  });
});

const MC = ['multiclass'];
describe('real data: pendigits', needsData([...MC, 'pendigits', 'pendigits.scale'], [...MC, 'pendigits', 'pendigits.scale.t']), () => {
  let train: MulticlassDataset;
  beforeAll(() => {
    train = loadLibsvm(dataPath(...MC, 'pendigits', 'pendigits.scale'));
  });

  it('pendigits.scale: 7,494 rows, 16 features, 10 classes', () => {
    expect(train.X.rows).toBe(7494);
    expect(train.X.cols).toBe(16);
    expect(train.numLabels).toBe(10);
    expect(train.labelNames).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    expect(train.y.length).toBe(7494);
    const counts = new Array<number>(10).fill(0);
    for (const c of train.y) counts[c]!++;
    expect(Math.min(...counts)).toBeGreaterThan(700); // every digit well represented
    for (const v of train.X.values) if (!(v >= 0 && v <= 1)) throw new Error(`value ${v} outside [0,1]`);
    expect(train.X.indptr[train.X.rows]).toBe(train.X.indices.length);
  });

  it('pendigits.scale.t loads with the training mapping: 3,498 rows', () => {
    const test = loadLibsvm(dataPath(...MC, 'pendigits', 'pendigits.scale.t'), { numFeatures: train.X.cols, labelNames: train.labelNames });
    expect(test.X.rows).toBe(3498);
    expect(test.X.cols).toBe(16);
    expect(test.labelNames).toEqual(train.labelNames);
    expect(new Set(test.y).size).toBe(10);
  });
});

describe('real data: dna', needsData(...MC, 'dna', 'dna.scale'), () => {
  it('dna.scale: 2,000 rows, 180 features, 3 classes', () => {
    const d = loadLibsvm(dataPath(...MC, 'dna', 'dna.scale'));
    expect(d.X.rows).toBe(2000);
    expect(d.X.cols).toBe(180);
    expect(d.numLabels).toBe(3);
    expect(d.labelNames).toEqual(['1', '2', '3']);
    for (const v of d.X.values) if (v !== 1) throw new Error(`dna value ${v} (expected binary features)`);
    if (hasData(...MC, 'dna', 'dna.scale.t')) {
      const t = loadLibsvm(dataPath(...MC, 'dna', 'dna.scale.t'), { numFeatures: d.X.cols, labelNames: d.labelNames });
      expect(t.X.rows).toBe(1186);
    }
  });
});
