import { describe, expect, it } from 'vitest';
import { FormatError } from '../src/core/errors.js';
import { parseMat } from '../src/data/matfile.js';
import { dataPath } from '../src/data/paths.js';
import { loadLspJoints, lspImagePath, lspSplit, loadImage } from '../src/data/lsp.js';

import { compressed, doubles, element, header, matrix } from './helpers/matfile-writer.js';
import { needsData } from './helpers/skips.js';

describe('MAT v5 reader', () => {
  const a = [1, 2.5, -3, 4, 5e-300, 6]; // 2 x 3, column-major
  const b = Array.from({ length: 3 * 2 * 2 }, (_, i) => i * 0.5 - 1);

  it('reads uncompressed and compressed doubles with their dims (column-major)', () => {
    const bytes = Uint8Array.from([...header(), ...matrix('a', [2, 3], a), ...compressed(matrix('joints', [3, 2, 2], b))]);
    const mat = parseMat(bytes);
    expect(mat.header).toContain('made by a test');
    const va = mat.variables.get('a')!;
    expect(va.className).toBe('double');
    expect(va.dims).toEqual([2, 3]);
    expect([...va.data!]).toEqual(a);
    const vb = mat.variables.get('joints')!;
    expect(vb.dims).toEqual([3, 2, 2]);
    expect([...vb.data!]).toEqual(b);
  });

  it('converts other storage types and reads small data elements', () => {
    const bytes = Uint8Array.from([...header(), ...matrix('u', [1, 4], [0, 1, 200, 255], { asUint8: true, smallName: true })]);
    const v = parseMat(bytes).variables.get('u')!;
    expect([...v.data!]).toEqual([0, 1, 200, 255]);
  });

  it('rejects corrupt files with a FormatError', () => {
    const good = [...header(), ...compressed(matrix('x', [2, 2], [1, 2, 3, 4]))];
    expect(() => parseMat(Uint8Array.from(good.slice(0, 100)))).toThrow(/header alone is 128/);
    const badEndian = [...good];
    badEndian[126] = 0x58;
    expect(() => parseMat(Uint8Array.from(badEndian))).toThrow(FormatError);
    const truncated = good.slice(0, good.length - 10);
    expect(() => parseMat(Uint8Array.from(truncated))).toThrow(/claims \d+ bytes/);
    const garbled = [...good];
    for (let k = 140; k < 150; k++) garbled[k] = 0xff ^ garbled[k]!;
    expect(() => parseMat(Uint8Array.from(garbled))).toThrow(FormatError);
    // A matrix whose data does not match its dimensions.
    const wrongCount = [...header(), ...matrix('x', [3, 3], [1, 2, 3, 4])];
    expect(() => parseMat(Uint8Array.from(wrongCount))).toThrow(/4 values for dimensions 3x3/);
    // An unknown top-level element type.
    const unknown = [...header(), ...element(9, doubles([1]))];
    expect(() => parseMat(Uint8Array.from(unknown))).toThrow(/unexpected top-level/);
  });
});

describe('LSP joints.mat', needsData('lsp', 'joints.mat'), () => {
  it('loads 2000 annotations with the documented layout and splits', () => {
    const ann = loadLspJoints(dataPath('lsp'));
    expect(ann.length).toBe(2000);
    const vis = ann.flatMap((a) => a.visible).filter(Boolean).length / (2000 * 14);
    expect(vis).toBeGreaterThan(0.9); // 92.7% visible per SOURCE.md
    expect(vis).toBeLessThan(0.95);
    // Head top above the neck (image y grows downwards) in the vast majority of images.
    const headUp = ann.filter((a) => a.y[13]! < a.y[12]!).length;
    expect(headUp).toBeGreaterThan(1800);
    const s = lspSplit(ann.length, 'small');
    expect(s.train.length).toBe(100);
    expect(s.test[0]).toBe(1000);
    expect(lspSplit(ann.length).train.length).toBe(1000);
  });

  it('decodes an image with sharp', async () => {
    const img = await loadImage(lspImagePath(dataPath('lsp'), 0));
    expect([img.width, img.height, img.channels]).toEqual([70, 160, 3]);
    const half = await loadImage(lspImagePath(dataPath('lsp'), 0), 0.5);
    expect([half.width, half.height]).toEqual([35, 80]);
  });
});
