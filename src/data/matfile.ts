/**
 * A small reader for MATLAB level-5 MAT-files (the format of `save` before -v7.3): the 128-byte header,
 * then data elements, each an 8-byte tag (type, byte count; or the 4-byte "small data element" form)
 * padded to 8 bytes. miCOMPRESSED (15) elements hold one zlib stream that inflates to further elements.
 * miMATRIX (14) elements of numeric classes (double, single, int8..uint64, logical) and char are decoded
 * into column-major Float64Arrays; cells, structs, objects and sparse arrays are listed but not decoded.
 *
 * Reference: "MAT-File Format", The MathWorks (Level 5 MAT-File Format, ch. 1).
 *
 * @module
 */
import { readInputFile } from '../io/input.js';
import { inflateSync } from 'node:zlib';
import { FormatError } from '../core/errors.js';

/** MATLAB array classes (mxCLASS ids). */
const CLASS_NAMES: Record<number, string> = {
  1: 'cell', 2: 'struct', 3: 'object', 4: 'char', 5: 'sparse', 6: 'double', 7: 'single',
  8: 'int8', 9: 'uint8', 10: 'int16', 11: 'uint16', 12: 'int32', 13: 'uint32', 14: 'int64', 15: 'uint64',
};

/** One variable of a MAT-file. */
export interface MatVariable {
  name: string;
  /** MATLAB class: 'double', 'single', 'int32', 'char', 'logical', 'cell', 'struct', ... */
  className: string;
  /** Dimensions (at least 2), MATLAB order. */
  dims: number[];
  /** Real part, column-major (MATLAB order), converted to float64; undefined for classes not decoded. */
  data?: Float64Array;
  /** Imaginary part of complex arrays. */
  imag?: Float64Array;
}

/** A parsed MAT-file: header text and variables by name (in file order). */
export interface MatFile {
  header: string;
  variables: Map<string, MatVariable>;
}

// Data types of the tags (miINT8 = 1 ... miUTF32 = 18).
const MI = { INT8: 1, UINT8: 2, INT16: 3, UINT16: 4, INT32: 5, UINT32: 6, SINGLE: 7, DOUBLE: 9, INT64: 12, UINT64: 13, MATRIX: 14, COMPRESSED: 15, UTF8: 16, UTF16: 17, UTF32: 18 } as const;
const ELEMENT_SIZE: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 2, 5: 4, 6: 4, 7: 4, 9: 8, 12: 8, 13: 8, 16: 1, 17: 2, 18: 4 };

interface Element {
  type: number;
  /** Offset of the payload and its byte count. */
  start: number;
  size: number;
  /** Offset of the next element. */
  next: number;
}

class Reader {
  constructor(
    readonly bytes: Uint8Array,
    readonly view: DataView,
    readonly little: boolean,
    readonly file: string | undefined,
  ) {}

  fail(msg: string, at: number): never {
    throw new FormatError(`${msg} (at byte ${at})`, this.file);
  }

  /** The element whose tag starts at `pos`, bounded by `end`. */
  element(pos: number, end: number, top: boolean): Element {
    if (pos + 8 > end) this.fail(`truncated data element tag: ${end - pos} bytes left, need 8`, pos);
    const first = this.view.getUint32(pos, this.little);
    const small = first >>> 16;
    if (small !== 0) {
      // Small data element: 2 bytes count, 2 bytes type, up to 4 bytes of data, in one 8-byte word.
      const type = first & 0xffff;
      if (small > 4) this.fail(`small data element claims ${small} bytes (at most 4)`, pos);
      return { type, start: pos + 4, size: small, next: pos + 8 };
    }
    const type = first;
    const size = this.view.getUint32(pos + 4, this.little);
    const start = pos + 8;
    // Compressed elements at the top level are not padded; everything else is padded to 8 bytes.
    const padded = type === MI.COMPRESSED && top ? size : Math.ceil(size / 8) * 8;
    if (start + size > end) this.fail(`data element of type ${type} claims ${size} bytes but only ${end - start} remain (truncated file?)`, pos);
    return { type, start, size, next: Math.min(start + padded, end) };
  }

  /** The numbers of a numeric element, as float64. */
  numbers(el: Element, what: string): Float64Array {
    const es = ELEMENT_SIZE[el.type];
    if (es === undefined || el.type === MI.UTF8 || el.type === MI.UTF16 || el.type === MI.UTF32) {
      this.fail(`${what}: unexpected data type ${el.type}`, el.start - 8);
    }
    if (el.size % es !== 0) this.fail(`${what}: ${el.size} bytes is not a multiple of the element size ${es}`, el.start);
    const n = el.size / es;
    const out = new Float64Array(n);
    const v = this.view;
    const le = this.little;
    let p = el.start;
    for (let i = 0; i < n; i++, p += es) {
      switch (el.type) {
        case MI.INT8: out[i] = v.getInt8(p); break;
        case MI.UINT8: out[i] = v.getUint8(p); break;
        case MI.INT16: out[i] = v.getInt16(p, le); break;
        case MI.UINT16: out[i] = v.getUint16(p, le); break;
        case MI.INT32: out[i] = v.getInt32(p, le); break;
        case MI.UINT32: out[i] = v.getUint32(p, le); break;
        case MI.SINGLE: out[i] = v.getFloat32(p, le); break;
        case MI.DOUBLE: out[i] = v.getFloat64(p, le); break;
        case MI.INT64: out[i] = Number(v.getBigInt64(p, le)); break;
        case MI.UINT64: out[i] = Number(v.getBigUint64(p, le)); break;
        default: this.fail(`${what}: unexpected data type ${el.type}`, el.start - 8);
      }
    }
    return out;
  }

  /** Parses the payload of a miMATRIX element. Returns undefined for an empty (0-byte) matrix. */
  matrix(el: Element): MatVariable | undefined {
    if (el.size === 0) return undefined;
    const end = el.start + el.size;
    const flagsEl = this.element(el.start, end, false);
    if (flagsEl.type !== MI.UINT32 || flagsEl.size !== 8) this.fail('array flags subelement must be 8 bytes of miUINT32', el.start);
    const flags = this.view.getUint32(flagsEl.start, this.little);
    const cls = flags & 0xff;
    const complex = (flags & 0x800) !== 0;
    const logical = (flags & 0x200) !== 0;
    const clsName = CLASS_NAMES[cls];
    if (clsName === undefined) this.fail(`unknown array class ${cls}`, flagsEl.start);
    const dimsEl = this.element(flagsEl.next, end, false);
    if (dimsEl.type !== MI.INT32) this.fail(`dimensions subelement must be miINT32, got type ${dimsEl.type}`, flagsEl.next);
    const dims = Array.from(this.numbers(dimsEl, 'dimensions'));
    if (dims.length < 2) this.fail(`an array needs at least 2 dimensions, got ${dims.length}`, dimsEl.start);
    for (const d of dims) if (!(d >= 0)) this.fail(`negative dimension ${d}`, dimsEl.start);
    const nameEl = this.element(dimsEl.next, end, false);
    if (nameEl.type !== MI.INT8 && nameEl.type !== MI.UINT8) this.fail(`array name subelement must be miINT8, got type ${nameEl.type}`, dimsEl.next);
    const name = new TextDecoder('latin1').decode(this.bytes.subarray(nameEl.start, nameEl.start + nameEl.size));
    const variable: MatVariable = { name, className: logical ? 'logical' : clsName, dims };
    if (cls <= 3 || cls === 5) return variable; // cell, struct, object, sparse: listed, not decoded
    const count = dims.reduce((a, b) => a * b, 1);
    const realEl = this.element(nameEl.next, end, false);
    const real = this.numbers(realEl, `'${name}' real part`);
    if (real.length !== count) this.fail(`'${name}': ${real.length} values for dimensions ${dims.join('x')} (${count} expected)`, realEl.start);
    variable.data = real;
    if (complex) {
      const imEl = this.element(realEl.next, end, false);
      const imag = this.numbers(imEl, `'${name}' imaginary part`);
      if (imag.length !== count) this.fail(`'${name}': ${imag.length} imaginary values, ${count} expected`, imEl.start);
      variable.imag = imag;
    }
    return variable;
  }
}

/**
 * Parses a level-5 MAT-file from its bytes.
 *
 * @param file - a name used in error messages.
 * @throws FormatError on a bad header, truncated or inconsistent elements, or a corrupt zlib stream.
 */
export function parseMat(bytes: Uint8Array, file?: string): MatFile {
  if (bytes.length < 128) throw new FormatError(`not a MAT v5 file: ${bytes.length} bytes, the header alone is 128`, file);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const e0 = bytes[126]!;
  const e1 = bytes[127]!;
  let little: boolean;
  if (e0 === 0x49 && e1 === 0x4d) little = true; // 'IM': written little-endian
  else if (e0 === 0x4d && e1 === 0x49) little = false; // 'MI'
  else throw new FormatError(`not a MAT v5 file: endian indicator is ${JSON.stringify(String.fromCharCode(e0, e1))}, expected "IM" or "MI"`, file);
  const version = view.getUint16(124, little);
  if (version !== 0x0100) throw new FormatError(`unsupported MAT version 0x${version.toString(16)} (only level 5, 0x0100; v7.3 files are HDF5)`, file);
  const header = new TextDecoder('latin1').decode(bytes.subarray(0, 116)).replace(/[\s\0]+$/, '');
  const variables = new Map<string, MatVariable>();
  parseElements(new Reader(bytes, view, little, file), 128, bytes.length, variables, file);
  return { header, variables };
}

function parseElements(r: Reader, pos: number, end: number, out: Map<string, MatVariable>, file: string | undefined): void {
  while (pos < end) {
    // Trailing zero padding is tolerated.
    if (end - pos < 8 && r.bytes.subarray(pos, end).every((b) => b === 0)) return;
    const el = r.element(pos, end, true);
    if (el.type === MI.COMPRESSED) {
      let inflated: Buffer;
      try {
        inflated = inflateSync(r.bytes.subarray(el.start, el.start + el.size));
      } catch (e) {
        r.fail(`corrupt zlib stream in a compressed element (${(e as Error).message})`, pos);
      }
      const inner = new Reader(new Uint8Array(inflated.buffer, inflated.byteOffset, inflated.byteLength), new DataView(inflated.buffer, inflated.byteOffset, inflated.byteLength), r.little, file);
      parseElements(inner, 0, inflated.byteLength, out, file);
    } else if (el.type === MI.MATRIX) {
      const v = r.matrix(el);
      if (v !== undefined) out.set(v.name, v);
    } else {
      r.fail(`unexpected top-level data element type ${el.type} (expected miMATRIX 14 or miCOMPRESSED 15)`, pos);
    }
    pos = el.next;
  }
}

/** Reads and parses a MAT-file. @throws InputError if unreadable, FormatError if malformed. */
export function readMat(path: string): MatFile {
  return parseMat(readInputFile(path), path);
}

/** A decoded numeric variable by name; throws FormatError when absent or not numeric. */
export function matNumeric(mat: MatFile, name: string, file?: string): MatVariable & { data: Float64Array } {
  const v = mat.variables.get(name);
  if (v === undefined) throw new FormatError(`no variable '${name}' (found: ${[...mat.variables.keys()].join(', ') || 'none'})`, file);
  if (v.data === undefined) throw new FormatError(`variable '${name}' is a ${v.className} array, not numeric`, file);
  return v as MatVariable & { data: Float64Array };
}
