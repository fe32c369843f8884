import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { Rng } from '../src/core/rng.js';
import { fingerprintExamples } from '../src/core/dataset.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../src/core/errors.js';
import { expectFormatError } from './helpers/errors.js';
import {
  MODEL_FILE_VERSION,
  crc32,
  decodeModelFile,
  encodeModelFile,
  readModelFile,
  writeModelFile,
  type ModelArray,
} from '../src/io/model-file.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/bad/', import.meta.url));

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'gapbcfw-model-'));
});
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

/** Bytes of a typed array (to compare NaN payloads bit for bit). */
const bytesOf = (a: ModelArray): number[] => Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));


/** Recomputes the trailing CRC after a deliberate edit. */
function fixCrc(b: Buffer): Buffer {
  b.writeUInt32LE(crc32(b.subarray(0, b.length - 4)), b.length - 4);
  return b;
}

function sample(): { meta: Record<string, unknown>; arrays: Record<string, ModelArray> } {
  // f64 with NaN payloads (quiet NaN with payload, signalling-pattern NaN, negative NaN), -0 and infinities
  const w = new Float64Array(7);
  const bits = new BigUint64Array(w.buffer);
  bits[0] = 0x7ff8_0000_dead_beefn;
  bits[1] = 0x7ff0_0000_0000_0001n;
  bits[2] = 0xfff8_0000_0000_1234n;
  w[3] = -0;
  w[4] = Infinity;
  w[5] = -Infinity;
  w[6] = Math.PI;
  return {
    meta: { model: 'chain', lambda: 0.01, labels: ['a', 'b'], nested: { ok: true, n: null }, unicode: 'é ✓' },
    arrays: {
      w,
      f32: Float32Array.from([1.5, -2.25, 3e-7]),
      i32: Int32Array.from([-2147483648, 2147483647, 0, 7, -1]),
      u8: Uint8Array.from([0, 255, 7]),
      emptyF64: new Float64Array(0),
      emptyU8: new Uint8Array(0),
      odd: Uint8Array.from([1, 2, 3, 4, 5]), // forces padding before the next array
      after: Float64Array.from([42]),
    },
  };
}

describe('crc32', () => {
  it('matches the standard check value', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    const b = Buffer.from('hello, gapbcfw');
    expect(crc32(b.subarray(5), crc32(b.subarray(0, 5)))).toBe(crc32(b));
  });
});

describe('model file round trip', () => {
  it('encodes and decodes every dtype, empty arrays and NaN payloads bit for bit', () => {
    const s = sample();
    const buf = encodeModelFile(s);
    expect(buf.subarray(0, 8).toString('latin1')).toBe('GAPBCFW\0');
    expect(buf.readUInt32LE(8)).toBe(MODEL_FILE_VERSION);
    expect(buf.length % 8).toBe(4); // 8-aligned body + CRC
    const d = decodeModelFile(buf);
    expect(d.meta).toEqual(s.meta);
    expect(Object.keys(d.arrays)).toEqual(Object.keys(s.arrays));
    for (const [name, a] of Object.entries(s.arrays)) {
      const b = d.arrays[name]!;
      expect(b.constructor).toBe(a.constructor);
      expect(b.length).toBe(a.length);
      expect(bytesOf(b)).toEqual(bytesOf(a));
    }
    expect(Object.is(d.arrays.w![3], -0)).toBe(true);
  });

  it('aligns arrays to 8 bytes and records them in the header', () => {
    const buf = encodeModelFile(sample());
    const hlen = buf.readUInt32LE(12);
    const header = JSON.parse(buf.subarray(16, 16 + hlen).toString('utf8'));
    const dataStart = Math.ceil((16 + hlen) / 8) * 8;
    expect(header.arrays.map((e: { name: string }) => e.name)).toEqual(Object.keys(sample().arrays));
    for (const e of header.arrays) expect((dataStart + e.offset) % 8).toBe(0);
    const after = header.arrays.find((e: { name: string }) => e.name === 'after');
    expect(after.dtype).toBe('f64');
    expect(buf.readDoubleLE(dataStart + after.offset)).toBe(42); // little-endian on disk
    // the padding after the header is zero
    for (let i = 16 + hlen; i < dataStart; i++) expect(buf[i]).toBe(0);
  });

  it('decodes from an unaligned Buffer view', () => {
    const buf = encodeModelFile(sample());
    const big = Buffer.alloc(buf.length + 3);
    buf.copy(big, 3);
    const d = decodeModelFile(big.subarray(3));
    expect(bytesOf(d.arrays.w!)).toEqual(bytesOf(sample().arrays.w!));
  });

  it('writes atomically and reads back', () => {
    const p = join(tmp, 'm.gbm');
    writeModelFile(p, sample());
    const d = readModelFile(p);
    expect(d.meta.model).toBe('chain');
    expect(Array.from(d.arrays.i32!)).toEqual([-2147483648, 2147483647, 0, 7, -1]);
    // overwrite in place; no temporary files are left behind
    writeModelFile(p, { meta: { v: 2 }, arrays: {} });
    expect(readModelFile(p)).toEqual({ meta: { v: 2 }, arrays: {} });
    expect(readdirSync(tmp).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('leaves the old file intact when a save fails', () => {
    const p = join(tmp, 'keep.gbm');
    writeModelFile(p, { meta: { v: 1 }, arrays: { a: Float64Array.from([1]) } });
    expect(() => writeModelFile(p, { meta: { bad: NaN }, arrays: {} })).toThrow(InputError);
    expect(() => writeModelFile(join(tmp, 'no-such-dir', 'x.gbm'), { meta: {}, arrays: {} })).toThrow(InputError);
    expect(readModelFile(p).meta).toEqual({ v: 1 });
    expect(existsSync(join(tmp, 'no-such-dir'))).toBe(false);
  });

  it('rejects content that cannot be stored faithfully', () => {
    expect(() => encodeModelFile({ meta: { x: Infinity }, arrays: {} })).toThrow(/meta\.x is Infinity/);
    expect(() => encodeModelFile({ meta: { x: [1, 10n] }, arrays: {} })).toThrow(/bigint/);
    expect(() => encodeModelFile({ meta: { w: new Float64Array(2) }, arrays: {} })).toThrow(InputError);
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    expect(() => encodeModelFile({ meta: cyc, arrays: {} })).toThrow(/circular/);
    expect(() => encodeModelFile({ meta: {}, arrays: { a: new Int16Array(2) as unknown as Int32Array } })).toThrow(InputError);
  });
});

describe('model file corruption', () => {
  const good = (): Buffer => encodeModelFile(sample());

  it('flipped byte anywhere after the fixed header -> CRC error', () => {
    const b = good();
    for (const pos of [16, 20, Math.floor(b.length / 2), b.length - 5, b.length - 1]) {
      const c = Buffer.from(b);
      c[pos] = c[pos]! ^ 0x01;
      expectFormatError(() => decodeModelFile(c), undefined, /CRC-32 mismatch/);
    }
  });

  it('truncated at any length -> FormatError, never a RangeError', () => {
    const b = good();
    const lengths = [0, 1, 7, 8, 12, 15, 16, 19, 20, 40, b.length - 100, b.length - 5, b.length - 4, b.length - 1];
    for (let n = 0; n < b.length; n += 7) lengths.push(n);
    for (const n of lengths) {
      expectFormatError(() => decodeModelFile(b.subarray(0, n)), undefined, /truncated|CRC-32 mismatch/);
    }
  });

  it('other magic', () => {
    const b = good();
    b.write('NOTMODEL', 0, 'latin1');
    expectFormatError(() => decodeModelFile(b), undefined, /not a gapbcfw model file/);
    expectFormatError(() => decodeModelFile(Buffer.from('{"meta":{}}')), undefined, /not a gapbcfw model file/);
  });

  it('other version', () => {
    const b = good();
    b.writeUInt32LE(2, 8);
    fixCrc(b);
    expectFormatError(() => decodeModelFile(b), undefined, /^model file version 2 is not supported by this gapbcfw \(expects 1\)$/);
  });

  it('header that is not valid JSON, or JSON of the wrong shape', () => {
    const craft = (header: string | Buffer): Buffer => {
      const h = typeof header === 'string' ? Buffer.from(header, 'utf8') : header;
      const dataStart = Math.ceil((16 + h.length) / 8) * 8;
      const b = Buffer.alloc(dataStart + 4);
      b.write('GAPBCFW\0', 0, 'latin1');
      b.writeUInt32LE(1, 8);
      b.writeUInt32LE(h.length, 12);
      h.copy(b, 16);
      return fixCrc(b);
    };
    expect(decodeModelFile(craft('{"meta":{},"arrays":[]}'))).toEqual({ meta: {}, arrays: {} }); // the crafting is right
    expectFormatError(() => decodeModelFile(craft('{"meta":{},"arrays":[')), undefined, /not valid UTF-8 JSON/);
    expectFormatError(() => decodeModelFile(craft('')), undefined, /not valid UTF-8 JSON/);
    expectFormatError(() => decodeModelFile(craft(Buffer.from([0x7b, 0xff, 0x7d]))), undefined, /not valid UTF-8 JSON/);
    expectFormatError(() => decodeModelFile(craft('[1,2]')), undefined, /must be a JSON object/);
    expectFormatError(() => decodeModelFile(craft('{"meta":{}}')), undefined, /'arrays' must be an array/);
    expectFormatError(() => decodeModelFile(craft('{"meta":3,"arrays":[]}')), undefined, /'meta' must be an object/);
    expectFormatError(
      () => decodeModelFile(craft('{"meta":{},"arrays":[{"name":"w","dtype":"f16","length":0,"offset":0}]}')),
      undefined,
      /unknown dtype "f16"/,
    );
    expectFormatError(
      () => decodeModelFile(craft('{"meta":{},"arrays":[{"name":"w","dtype":"f64","length":-1,"offset":0}]}')),
      undefined,
      /length must be a non-negative integer/,
    );
    expectFormatError(
      () => decodeModelFile(craft('{"meta":{},"arrays":[{"name":"w","dtype":"u8","length":0,"offset":0},{"name":"w","dtype":"u8","length":0,"offset":0}]}')),
      undefined,
      /duplicate array name 'w'/,
    );
  });

  it('array table pointing outside the file', () => {
    const b = good();
    const hlen = b.readUInt32LE(12);
    const header = JSON.parse(b.subarray(16, 16 + hlen).toString('utf8'));
    const dataStart = Math.ceil((16 + hlen) / 8) * 8;
    const data = b.subarray(dataStart, b.length - 4);
    /** Rebuilds the file with an edited header and the same data section. */
    const tamper = (edit: (h: { arrays: { length: number; offset: number }[] }) => void): Buffer => {
      const h = structuredClone(header);
      edit(h);
      const hb = Buffer.from(JSON.stringify(h) + ' ', 'utf8'); // whitespace: still valid JSON
      const start = Math.ceil((16 + hb.length) / 8) * 8;
      const c = Buffer.alloc(start + data.length + 4);
      b.copy(c, 0, 0, 16);
      c.writeUInt32LE(hb.length, 12);
      hb.copy(c, 16);
      data.copy(c, start);
      return fixCrc(c);
    };
    const same = decodeModelFile(tamper(() => {})); // the rebuilding is right
    expect(same.meta).toEqual(sample().meta);
    expect(bytesOf(same.arrays.w!)).toEqual(bytesOf(sample().arrays.w!));
    expectFormatError(() => decodeModelFile(tamper((h) => (h.arrays[0]!.length = 1e6))), undefined, /outside the \d+-byte data section/);
    expectFormatError(() => decodeModelFile(tamper((h) => (h.arrays[1]!.offset = 1 << 30))), undefined, /outside/);
    expectFormatError(() => decodeModelFile(tamper((h) => (h.arrays[1]!.offset = 4))), undefined, /multiple of 8/);
    // header length field larger than the file
    const c = Buffer.from(b);
    c.writeUInt32LE(0xfffffff0, 12);
    expectFormatError(() => decodeModelFile(fixCrc(c)), undefined, /truncated/);
  });

  describe('fixture files', () => {
    it('model-good.gbm decodes', () => {
      const d = readModelFile(join(FIXTURES, 'model-good.gbm'));
      expect(d.meta).toEqual({ kind: 'fixture', lambda: 0.01 });
      expect(Array.from(d.arrays.w!)).toEqual([1, -2, 3.5]);
      expect(Array.from(d.arrays.y!)).toEqual([0, 1, 2]);
      expect(d.arrays.y).toBeInstanceOf(Int32Array);
    });
    const fx: [string, RegExp][] = [
      ['model-truncated.gbm', /CRC-32 mismatch|truncated/],
      ['model-bad-crc.gbm', /CRC-32 mismatch/],
      ['model-version2.gbm', /model file version 2 is not supported by this gapbcfw \(expects 1\)/],
    ];
    for (const [name, re] of fx) {
      it(name, () => {
        const p = join(FIXTURES, name);
        const e = expectFormatError(() => readModelFile(p), undefined, re);
        expect(e.file).toBe(p);
        expect(e.message.startsWith(p)).toBe(true);
      });
    }
    it('other files are not model files', () => {
      expectFormatError(() => readModelFile(join(FIXTURES, 'libsvm-nan.txt')), undefined, /not a gapbcfw model file/);
      expect(() => readModelFile(join(tmp, 'missing.gbm'))).toThrow(InputError);
      writeFileSync(join(tmp, 'empty.gbm'), '');
      expectFormatError(() => readModelFile(join(tmp, 'empty.gbm')), undefined, /truncated/);
      expect(readFileSync(join(FIXTURES, 'model-good.gbm')).subarray(0, 7).toString()).toBe('GAPBCFW');
    });
  });
});

describe('data fingerprints', () => {
  it('equal the CRC-32 of every array fed on its own, in order (small arrays are fed together, large ones alone)', () => {
    const rng = new Rng(11);
    const row = (nnz: number) => ({ values: Float64Array.from({ length: nnz }, () => rng.next()), indices: Int32Array.from({ length: nnz }, (_, k) => 3 * k), nnz });
    // sizes around the staging thresholds: a few bytes, 1 KiB, past 64 KiB
    const xs = [1, 5, 127, 128, 129, 3000, 9000, 0, 2].map(row);
    const ys = xs.map((_, i) => (i % 2 ? i : Float32Array.of(i, -i)));
    let crc = 0;
    const feed = (a: ArrayBufferView) => (crc = zlibCrc32(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), crc) >>> 0);
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      [x.indices, Float64Array.of(x.nnz), x.values].forEach(feed); // fields in key order
      const y = ys[i]!;
      feed(typeof y === 'number' ? Float64Array.of(y) : y);
    }
    expect(fingerprintExamples(xs.length, (i) => xs[i], (i) => ys[i])).toBe(`${xs.length}:${crc.toString(16).padStart(8, '0')}`);
  });
});
