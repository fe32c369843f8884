/**
 * Versioned binary model files (`.gbm`).
 *
 * Layout (all integers little-endian):
 *
 * | bytes            | content                                                                 |
 * |------------------|-------------------------------------------------------------------------|
 * | 0..7             | magic `GAPBCFW\0`                                                       |
 * | 8..11            | uint32 format version (= {@link MODEL_FILE_VERSION})                    |
 * | 12..15           | uint32 byte length H of the JSON header                                 |
 * | 16..16+H-1       | UTF-8 JSON header `{"meta": {...}, "arrays": [{name,dtype,length,offset}]}` |
 * | ...              | zero padding up to a multiple of 8: the data section starts there       |
 * | data section     | the arrays, little-endian, back to back, each starting 8-byte aligned   |
 * | last 4 bytes     | uint32 CRC-32 (IEEE 802.3) of every byte before it                      |
 *
 * `offset` in the array table is relative to the start of the data section (a multiple of 8, so
 * arrays are also 8-byte aligned in the file). Values are copied byte for byte, so NaN payloads
 * survive a round trip. Big-endian hosts are supported (bytes are swapped on the way in and out).
 */
import { readInputFile } from './input.js';
import { endianness } from 'node:os';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { FormatError, InputError } from '../core/errors.js';
import { writeOutput, type OutputOptions } from './output.js';

/** The 8 magic bytes that start every model file. */
export const MODEL_FILE_MAGIC: Uint8Array = Uint8Array.from([0x47, 0x41, 0x50, 0x42, 0x43, 0x46, 0x57, 0x00]); // "GAPBCFW\0"
/** The format version this build writes and reads. */
export const MODEL_FILE_VERSION = 1;

/** Element types of stored arrays. */
export type ModelDtype = 'f64' | 'f32' | 'i32' | 'u8';
/** The typed arrays a model file can hold. */
export type ModelArray = Float64Array | Float32Array | Int32Array | Uint8Array;

/** Content of a model file: JSON metadata plus named typed arrays. */
export interface ModelFileContent {
  /** JSON-serialisable metadata: null, booleans, finite numbers, strings, arrays and plain objects. */
  meta: Record<string, unknown>;
  /** Named arrays; order is preserved. */
  arrays: Record<string, ModelArray>;
}

/** One entry of the header's array table. */
export interface ModelArrayEntry {
  name: string;
  dtype: ModelDtype;
  /** Number of elements. */
  length: number;
  /** Byte offset from the start of the data section (a multiple of 8). */
  offset: number;
}

const FIXED = 16; // magic + version + header length
const CRC_BYTES = 4;
const ELEMENT_SIZE: Record<ModelDtype, number> = { f64: 8, f32: 4, i32: 4, u8: 1 };
const LITTLE_ENDIAN_HOST = endianness() === 'LE';

// ---------------------------------------------------------------------------------------------------
// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), table driven.

/**
 * CRC-32 of `bytes` (the zlib / PNG / gzip checksum; `crc32("123456789") = 0xcbf43926`), by zlib in
 * native code (several GB/s). Pass the previous result as `crc` to checksum data in pieces.
 */
export function crc32(bytes: Uint8Array, crc = 0): number {
  return zlibCrc32(bytes, crc) >>> 0;
}

// ---------------------------------------------------------------------------------------------------

function dtypeOf(a: unknown): ModelDtype | undefined {
  if (a instanceof Float64Array) return 'f64';
  if (a instanceof Float32Array) return 'f32';
  if (a instanceof Int32Array) return 'i32';
  if (a instanceof Uint8Array && !(a instanceof Uint8ClampedArray)) return 'u8';
  return undefined;
}

const align8 = (n: number): number => n + ((8 - (n % 8)) % 8);

/** Throws an InputError unless `v` is plain JSON that survives a stringify/parse round trip. */
function checkJson(v: unknown, path: string, seen: Set<object>): void {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new InputError(`model meta ${path} is ${v}: only finite numbers can be stored`);
    return;
  }
  if (typeof v !== 'object') throw new InputError(`model meta ${path} has type ${typeof v}, which JSON cannot store`);
  if (seen.has(v)) throw new InputError(`model meta ${path} is a circular reference`);
  seen.add(v);
  if (Array.isArray(v)) {
    v.forEach((e, i) => checkJson(e, `${path}[${i}]`, seen));
  } else {
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) {
      throw new InputError(`model meta ${path} is a ${(v as object).constructor?.name ?? 'non-plain object'}; store typed arrays in 'arrays' and plain objects in 'meta'`);
    }
    for (const [k, e] of Object.entries(v)) checkJson(e, `${path}.${k}`, seen);
  }
  seen.delete(v);
}

/** Copies the bytes of `a` into `out` at `pos`, little-endian. */
function putLE(a: ModelArray, out: Uint8Array, pos: number): void {
  const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  out.set(bytes, pos);
  if (!LITTLE_ENDIAN_HOST) swapBytes(out, pos, a.byteLength, a.BYTES_PER_ELEMENT);
}

function swapBytes(buf: Uint8Array, pos: number, len: number, size: number): void {
  if (size === 1) return;
  for (let i = pos; i < pos + len; i += size) {
    for (let a = i, b = i + size - 1; a < b; a++, b--) {
      const t = buf[a]!;
      buf[a] = buf[b]!;
      buf[b] = t;
    }
  }
}

/**
 * Encodes a model into the bytes of a model file.
 *
 * @throws InputError when `meta` is not plain JSON (NaN, Infinity, BigInt, functions, class instances,
 *   cycles) or an array is not a Float64Array, Float32Array, Int32Array or Uint8Array.
 */
export function encodeModelFile(content: ModelFileContent): Uint8Array {
  const { meta, arrays } = content;
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) throw new InputError('model meta must be a plain object');
  checkJson(meta, 'meta', new Set());
  if (arrays === null || typeof arrays !== 'object') throw new InputError('model arrays must be an object of typed arrays');
  const table: ModelArrayEntry[] = [];
  let dataLen = 0;
  for (const [name, a] of Object.entries(arrays)) {
    const dtype = dtypeOf(a);
    if (dtype === undefined) {
      throw new InputError(`model array '${name}' must be a Float64Array, Float32Array, Int32Array or Uint8Array`);
    }
    table.push({ name, dtype, length: a.length, offset: dataLen });
    dataLen = align8(dataLen + a.byteLength);
  }
  const header = Buffer.from(JSON.stringify({ meta, arrays: table }), 'utf8');
  if (header.length > 0xffffffff) throw new InputError('model header too large');
  const dataStart = align8(FIXED + header.length);
  const total = dataStart + dataLen + CRC_BYTES;
  const out = Buffer.alloc(total); // zero-filled: padding is zero
  out.set(MODEL_FILE_MAGIC, 0);
  out.writeUInt32LE(MODEL_FILE_VERSION, 8);
  out.writeUInt32LE(header.length, 12);
  header.copy(out, FIXED);
  const list = Object.values(arrays);
  for (let i = 0; i < table.length; i++) putLE(list[i]!, out, dataStart + table[i]!.offset);
  out.writeUInt32LE(crc32(out.subarray(0, total - CRC_BYTES)), total - CRC_BYTES);
  return out;
}

/**
 * Decodes the bytes of a model file. The returned arrays are fresh copies (8-byte aligned, independent
 * of `bytes`).
 *
 * @throws FormatError on a wrong magic, an unsupported version, a truncated file, a CRC-32 mismatch,
 *   a header that is not valid UTF-8 JSON of the expected shape, or an array table that points
 *   outside the data section. `file` names the source in the messages.
 */
export function decodeModelFile(bytes: Uint8Array, file?: string): ModelFileContent {
  const fail = (msg: string): FormatError => new FormatError(msg, file);
  const len = bytes.length;
  const magicLen = Math.min(len, MODEL_FILE_MAGIC.length);
  for (let i = 0; i < magicLen; i++) {
    if (bytes[i] !== MODEL_FILE_MAGIC[i]) throw fail('not a gapbcfw model file (bad magic bytes; expected "GAPBCFW\\0")');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (len < FIXED + CRC_BYTES) throw fail(`truncated model file: ${len} bytes, shorter than the ${FIXED + CRC_BYTES}-byte minimum`);
  const version = view.getUint32(8, true);
  if (version !== MODEL_FILE_VERSION) {
    throw fail(`model file version ${version} is not supported by this gapbcfw (expects ${MODEL_FILE_VERSION})`);
  }
  const headerLen = view.getUint32(12, true);
  const bodyEnd = len - CRC_BYTES;
  if (FIXED + headerLen > bodyEnd) throw fail(`truncated model file: the header needs ${headerLen} bytes but the file has ${len} bytes in all`);
  const stored = view.getUint32(bodyEnd, true);
  const computed = crc32(bytes.subarray(0, bodyEnd));
  if (stored !== computed) {
    throw fail(`CRC-32 mismatch (stored 0x${stored.toString(16).padStart(8, '0')}, computed 0x${computed.toString(16).padStart(8, '0')}): the file is corrupt or truncated`);
  }

  let header: unknown;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(FIXED, FIXED + headerLen));
    header = JSON.parse(text);
  } catch (e) {
    throw fail(`model header is not valid UTF-8 JSON (${(e as Error).message})`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) throw fail('model header must be a JSON object');
  const h = header as { meta?: unknown; arrays?: unknown };
  if (h.meta === null || typeof h.meta !== 'object' || Array.isArray(h.meta)) throw fail("model header: 'meta' must be an object");
  if (!Array.isArray(h.arrays)) throw fail("model header: 'arrays' must be an array");

  const dataStart = align8(FIXED + headerLen);
  const dataLen = bodyEnd - dataStart;
  if (dataLen < 0) throw fail('truncated model file: no room for the header padding');
  const names = new Set<string>();
  const out: Record<string, ModelArray> = {};
  h.arrays.forEach((entry: unknown, i: number) => {
    const where = `model header: arrays[${i}]`;
    if (entry === null || typeof entry !== 'object') throw fail(`${where} must be an object`);
    const { name, dtype, length, offset } = entry as Record<string, unknown>;
    if (typeof name !== 'string') throw fail(`${where}.name must be a string`);
    if (names.has(name)) throw fail(`${where}: duplicate array name '${name}'`);
    if (typeof dtype !== 'string' || !Object.prototype.hasOwnProperty.call(ELEMENT_SIZE, dtype)) {
      throw fail(`${where} ('${name}'): unknown dtype ${JSON.stringify(dtype)} (expected f64, f32, i32 or u8)`);
    }
    if (!Number.isSafeInteger(length) || (length as number) < 0) throw fail(`${where} ('${name}'): length must be a non-negative integer`);
    if (!Number.isSafeInteger(offset) || (offset as number) < 0 || (offset as number) % 8 !== 0) {
      throw fail(`${where} ('${name}'): offset must be a non-negative multiple of 8`);
    }
    const size = ELEMENT_SIZE[dtype as ModelDtype];
    const byteLen = (length as number) * size;
    const off = offset as number;
    if (off + byteLen > dataLen) {
      throw fail(`${where} ('${name}'): bytes ${off}..${off + byteLen} lie outside the ${dataLen}-byte data section`);
    }
    const a = makeArray(dtype as ModelDtype, length as number);
    const dst = new Uint8Array(a.buffer);
    dst.set(bytes.subarray(dataStart + off, dataStart + off + byteLen));
    if (!LITTLE_ENDIAN_HOST) swapBytes(dst, 0, byteLen, size);
    names.add(name);
    // defineProperty: a name such as '__proto__' must become a plain own property.
    Object.defineProperty(out, name, { value: a, enumerable: true, writable: true, configurable: true });
  });
  return { meta: h.meta as Record<string, unknown>, arrays: out };
}

function makeArray(dtype: ModelDtype, length: number): ModelArray {
  switch (dtype) {
    case 'f64':
      return new Float64Array(length);
    case 'f32':
      return new Float32Array(length);
    case 'i32':
      return new Int32Array(length);
    case 'u8':
      return new Uint8Array(length);
  }
}

/**
 * Writes a model file through {@link writeOutput}: atomically onto a regular file (the bytes go to a
 * temporary file in the same folder, are flushed to disk and renamed over the target, so an interrupted save
 * never leaves a partial file and the old file stays intact), following symbolic links, streamed to a
 * character device or FIFO, to stdout for `-`.
 *
 * @throws InputError on invalid content (see {@link encodeModelFile}) or a path that cannot be written;
 *   OutputError (naming the file, nothing left behind) when the disk is full or fails.
 */
export function writeModelFile(path: string, content: ModelFileContent, options?: OutputOptions): void {
  writeOutput(path, encodeModelFile(content), options);
}

/**
 * Reads a model file written by {@link writeModelFile}.
 *
 * @throws InputError when the file cannot be read; FormatError (naming the file) when it is not a valid
 *   model file of this version — see {@link decodeModelFile}.
 */
export function readModelFile(path: string): ModelFileContent {
  return decodeModelFile(readInputFile(path), path);
}
