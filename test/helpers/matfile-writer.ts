// Hand-made MAT v5 bytes (little-endian), written independently of the reader (src/data/matfile.ts).
import { deflateSync } from 'node:zlib';

export function tag(type: number, size: number): number[] {
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
export function element(type: number, payload: number[]): number[] {
  return [...tag(type, payload.length), ...pad8(payload)];
}
export function int32s(xs: number[]): number[] {
  const b = Buffer.alloc(4 * xs.length);
  xs.forEach((x, i) => b.writeInt32LE(x, 4 * i));
  return [...b];
}
export function doubles(xs: number[]): number[] {
  const b = Buffer.alloc(8 * xs.length);
  xs.forEach((x, i) => b.writeDoubleLE(x, 8 * i));
  return [...b];
}
/** A miMATRIX element: class 6 = double; the real part as miDOUBLE, or as miUINT8 when `asUint8`. */
export function matrix(name: string, dims: number[], values: number[], opts: { cls?: number; asUint8?: boolean; smallName?: boolean } = {}): number[] {
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
export function header(): number[] {
  const h = Buffer.alloc(128, 0x20);
  h.write('MATLAB 5.0 MAT-file, made by a test', 0, 'latin1');
  h.writeUInt16LE(0x0100, 124);
  h.write('IM', 126, 'latin1');
  return [...h];
}
export function compressed(payload: number[]): number[] {
  const z = [...deflateSync(Buffer.from(payload))];
  return [...tag(15, z.length), ...z];
}
/** A whole MAT file of double arrays (each compressed, as MATLAB writes them). */
export function matFile(vars: { name: string; dims: number[]; values: number[] }[]): Uint8Array {
  return Uint8Array.from([...header(), ...vars.flatMap((v) => compressed(matrix(v.name, v.dims, v.values)))]);
}
