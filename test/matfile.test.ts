import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../src/core/errors.js';
import { parseMat } from '../src/data/matfile.js';
import { dataPath, hasData } from '../src/data/paths.js';
import { loadLspJoints, lspImagePath, lspSplit, loadImage } from '../src/data/lsp.js';

// ---- hand-made MAT v5 bytes (little-endian), written independently of the reader ----
function tag(type: number, size: number): number[] {
  const b = Buffer.alloc(8);
  b.writeUInt32LE(type, 0);
  b.writeUInt32LE(size, 4);
  return [...b];
}
function pad8(bytes: number[]): number[] {
  const out = [...bytes];
  while (out.length % 8) out.push(0);
  return out;
}
function element(type: number, payload: number[]): number[] {
  return [...tag(type, payload.length), ...pad8(payload)];
}
function int32s(xs: number[]): number[] {
  const b = Buffer.alloc(4 * xs.length);
  xs.forEach((x, i) => b.writeInt32LE(x, 4 * i));
  return [...b];
}
function doubles(xs: number[]): number[] {
  const b = Buffer.alloc(8 * xs.length);
  xs.forEach((x, i) => b.writeDoubleLE(x, 8 * i));
  return [...b];
}
/** A miMATRIX element: class 6 = double; the real part as miDOUBLE, or as miUINT8 when `asUint8`. */
function matrix(name: string, dims: number[], values: number[], opts: { cls?: number; asUint8?: boolean; smallName?: boolean } = {}): number[] {
  const flags = element(6, [...int32s([opts.cls ?? 6]), 0, 0, 0, 0]);
  const dimsEl = element(5, int32s(dims));
  const nameBytes = [...Buffer.from(name, 'latin1')];
  // Names of up to 4 characters may use the small data element form (count in the upper 16 bits).
  const nameEl = opts.smallName && nameBytes.length <= 4
    ? (() => { const b = Buffer.alloc(8); b.writeUInt16LE(1, 0); b.writeUInt16LE(nameBytes.length, 2); Buffer.from(nameBytes).copy(b, 4); return [...b]; })()
    : element(1, nameBytes);
  const real = opts.asUint8 ? element(2, values) : element(9, doubles(values));
  return element(14, [...flags, ...dimsEl, ...nameEl, ...real]);
}
function header(): number[] {
  const h = Buffer.alloc(128, 0x20);
  h.write('MATLAB 5.0 MAT-file, made by a test', 0, 'latin1');
  h.writeUInt16LE(0x0100, 124);
  h.write('IM', 126, 'latin1');
  return [...h];
}
function compressed(payload: number[]): number[] {
  const z = [...deflateSync(Buffer.from(payload))];
  return [...tag(15, z.length), ...z];
}

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

const LSP = hasData('lsp', 'joints.mat');
describe.skipIf(!LSP)('LSP joints.mat', () => {
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
