import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../src/core/errors.js';
import { idxToDataset, loadIdx, loadIdxDataset, parseIdx } from '../src/data/idx.js';
import { dataPath } from '../src/data/paths.js';
import { needsData } from './helpers/skips.js';

/** Builds IDX bytes: type code, dims, then the element bytes (already big-endian). */
function idx(type: number, dims: number[], body: Uint8Array | number[]): Uint8Array {
  const header = new Uint8Array(4 + 4 * dims.length);
  const view = new DataView(header.buffer);
  header[2] = type;
  header[3] = dims.length;
  dims.forEach((d, i) => view.setUint32(4 + 4 * i, d, false));
  const b = Uint8Array.from(body);
  const out = new Uint8Array(header.length + b.length);
  out.set(header);
  out.set(b, header.length);
  return out;
}

function bigEndian(kind: 'int16' | 'int32' | 'float32' | 'float64', xs: number[]): Uint8Array {
  const size = { int16: 2, int32: 4, float32: 4, float64: 8 }[kind];
  const out = new Uint8Array(xs.length * size);
  const v = new DataView(out.buffer);
  xs.forEach((x, i) => {
    if (kind === 'int16') v.setInt16(i * size, x, false);
    else if (kind === 'int32') v.setInt32(i * size, x, false);
    else if (kind === 'float32') v.setFloat32(i * size, x, false);
    else v.setFloat64(i * size, x, false);
  });
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-idx-'));

describe('IDX reader', () => {
  it('decodes uint8 images (magic 2051) and labels (magic 2049)', () => {
    const images = idx(0x08, [2, 2, 3], [0, 1, 2, 3, 4, 5, 255, 0, 0, 0, 0, 7]);
    expect(new DataView(images.buffer).getUint32(0, false)).toBe(2051);
    const a = parseIdx(images);
    expect(a.type).toBe('uint8');
    expect(a.dims).toEqual([2, 2, 3]);
    expect(Array.from(a.data)).toEqual([0, 1, 2, 3, 4, 5, 255, 0, 0, 0, 0, 7]);
    const labels = idx(0x08, [2], [9, 3]);
    expect(new DataView(labels.buffer).getUint32(0, false)).toBe(2049);
    expect(Array.from(parseIdx(labels).data)).toEqual([9, 3]);
  });

  it('decodes the big-endian multi-byte types and int8', () => {
    expect(Array.from(parseIdx(idx(0x0b, [3], bigEndian('int16', [-2, 300, 7]))).data)).toEqual([-2, 300, 7]);
    expect(Array.from(parseIdx(idx(0x0c, [2], bigEndian('int32', [-70000, 123456789]))).data)).toEqual([-70000, 123456789]);
    expect(Array.from(parseIdx(idx(0x0d, [2], bigEndian('float32', [1.5, -0.25]))).data)).toEqual([1.5, -0.25]);
    expect(Array.from(parseIdx(idx(0x0e, [1, 2], bigEndian('float64', [Math.PI, -1e-300]))).data)).toEqual([Math.PI, -1e-300]);
    expect(Array.from(parseIdx(idx(0x09, [3], [0xff, 0x80, 0x01])).data)).toEqual([-1, -128, 1]);
  });

  it('rejects malformed files with FormatError naming the file', () => {
    const bad = (bytes: Uint8Array, re: RegExp) => {
      expect(() => parseIdx(bytes, 'f.idx')).toThrow(FormatError);
      expect(() => parseIdx(bytes, 'f.idx')).toThrow(re);
    };
    bad(Uint8Array.from([0, 0, 8]), /too short/);
    bad(Uint8Array.from([1, 0, 8, 1, 0, 0, 0, 0]), /magic/);
    bad(Uint8Array.from([0, 0, 0x0a, 1, 0, 0, 0, 0]), /unknown IDX element type 0a/);
    bad(Uint8Array.from([0, 0, 8, 0]), /0 dimensions/);
    bad(Uint8Array.from([0, 0, 8, 3, 0, 0, 0, 1]), /truncated IDX header/);
    bad(idx(0x08, [2, 3], [1, 2, 3, 4, 5]), /truncated IDX file/);
    bad(idx(0x08, [2], [1, 2, 3]), /1 trailing bytes/);
    bad(idx(0x0c, [2], [0, 0, 0, 1, 0, 0]), /truncated/);
    expect(() => parseIdx(Uint8Array.from([1, 0, 8, 1]), 'f.idx')).toThrow(/^f\.idx: /);
  });

  it('turns images + labels into a CSR data set (zeros omitted, scaled, labels mapped)', () => {
    const images = parseIdx(idx(0x08, [3, 2, 2], [0, 255, 0, 51, 0, 0, 0, 0, 102, 0, 0, 255]));
    const labels = parseIdx(idx(0x08, [3], [7, 2, 7]));
    const d = idxToDataset(images, labels);
    expect(d.X.rows).toBe(3);
    expect(d.X.cols).toBe(4);
    expect(Array.from(d.X.indptr)).toEqual([0, 2, 2, 4]);
    expect(Array.from(d.X.indices)).toEqual([1, 3, 0, 3]);
    expect(Array.from(d.X.values)).toEqual([1, 0.2, 0.4, 1]);
    expect(d.labelNames).toEqual(['2', '7']);
    expect(Array.from(d.y)).toEqual([1, 0, 1]);
    // A fixed mapping (a training set's) and a label outside it.
    expect(Array.from(idxToDataset(images, labels, { labelNames: ['7', '2', '5'] }).y)).toEqual([0, 1, 0]);
    expect(() => idxToDataset(images, labels, { labelNames: ['7'] })).toThrow(FormatError);
    // Explicit scale.
    expect(idxToDataset(images, labels, { scale: 1 }).X.values[0]).toBe(255);
  });

  it('checks counts, label types and finiteness', () => {
    const images = parseIdx(idx(0x08, [2, 2], [1, 2, 3, 4]));
    expect(() => idxToDataset(images, parseIdx(idx(0x08, [3], [0, 1, 2])))).toThrow(/2 images but 3 labels/);
    expect(() => idxToDataset(images, parseIdx(idx(0x08, [2, 1], [0, 1])))).toThrow(/one-dimensional/);
    expect(() => idxToDataset(images, parseIdx(idx(0x0d, [2], bigEndian('float32', [0.5, 1]))))).toThrow(/not an integer/);
    const nanImages = parseIdx(idx(0x0e, [2, 1], bigEndian('float64', [1, NaN])));
    expect(() => idxToDataset(nanImages, parseIdx(idx(0x08, [2], [0, 1])))).toThrow(/NaN/);
    expect(() => idxToDataset(parseIdx(idx(0x08, [0, 4], [])), parseIdx(idx(0x08, [0], [])))).toThrow(/no examples/);
  });

  it('loads gzip files and infers the labels file from the MNIST naming; a folder works too', () => {
    const sub = join(dir, 'set');
    mkdirSync(sub);
    writeFileSync(join(sub, 'train-images-idx3-ubyte.gz'), gzipSync(idx(0x08, [2, 1, 2], [0, 255, 255, 0])));
    writeFileSync(join(sub, 'train-labels-idx1-ubyte'), idx(0x08, [2], [4, 1]));
    expect(loadIdx(join(sub, 'train-images-idx3-ubyte.gz')).dims).toEqual([2, 1, 2]);
    const d = loadIdxDataset(join(sub, 'train-images-idx3-ubyte.gz'));
    expect(Array.from(d.y)).toEqual([1, 0]);
    expect(loadIdxDataset(sub).X.cols).toBe(2);
    writeFileSync(join(dir, 'lonely-images-idx3-ubyte'), idx(0x08, [1, 1, 1], [3]));
    expect(() => loadIdxDataset(join(dir, 'lonely-images-idx3-ubyte'))).toThrow(/labels file .* not found/);
    // A corrupt gzip is a FormatError too.
    writeFileSync(join(dir, 'bad-images-idx3-ubyte.gz'), Uint8Array.from([0x1f, 0x8b, 8, 0, 1, 2, 3]));
    expect(() => loadIdx(join(dir, 'bad-images-idx3-ubyte.gz'))).toThrow(FormatError);
  });

  it('reads the Fashion-MNIST test split: 10,000 28x28 images, 1,000 per class', needsData('multiclass', 'fashion_mnist_test'), () => {
    const folder = dataPath('multiclass', 'fashion_mnist_test');
    expect(loadIdx(join(folder, 't10k-images-idx3-ubyte.gz')).dims).toEqual([10000, 28, 28]);
    const d = loadIdxDataset(join(folder, 't10k-images-idx3-ubyte.gz'));
    expect(d.X.rows).toBe(10000);
    expect(d.X.cols).toBe(784);
    expect(d.numLabels).toBe(10);
    const counts = new Array(10).fill(0);
    for (const c of d.y) counts[c]++;
    expect(counts).toEqual(new Array(10).fill(1000));
    let max = 0;
    for (const v of d.X.values) max = Math.max(max, v);
    expect(max).toBeLessThanOrEqual(1);
    expect(d.X.values.every((v) => v > 0)).toBe(true);
  });
});
