/**
 * IDX files (the MNIST / Fashion-MNIST format; LeCun et al.):
 *
 *   bytes 0-1: 0x00 0x00; byte 2: element type (0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32,
 *   0x0D float32, 0x0E float64); byte 3: number of dimensions d; then d big-endian uint32 sizes;
 *   then the elements, big-endian, row-major.
 *
 * MNIST's images are `00 00 08 03` (magic 2051: n x rows x cols uint8), labels `00 00 08 01` (2049: n
 * uint8). Files may be gzip-compressed (detected by magic bytes). {@link loadIdxDataset} turns an images
 * file and a labels file into a {@link MulticlassDataset} (CSR rows of the flattened images, zero pixels
 * omitted, values scaled by default to [0, 1] for uint8 data).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { FormatError, InputError } from '../core/errors.js';
import type { MulticlassDataset } from '../core/data.js';
import { readDataFile } from './paths.js';

/** Element types of the IDX format (type byte 0x08 to 0x0E of the header). */
export type IdxType = 'uint8' | 'int8' | 'int16' | 'int32' | 'float32' | 'float64';
export type IdxData = Uint8Array | Int8Array | Int16Array | Int32Array | Float32Array | Float64Array;

/** A decoded IDX tensor. */
export interface IdxArray {
  type: IdxType;
  /** Sizes of the dimensions, outermost first. */
  dims: number[];
  /** The elements in row-major order, in native byte order. */
  data: IdxData;
}

const TYPES: Record<number, { type: IdxType; bytes: number }> = {
  0x08: { type: 'uint8', bytes: 1 },
  0x09: { type: 'int8', bytes: 1 },
  0x0b: { type: 'int16', bytes: 2 },
  0x0c: { type: 'int32', bytes: 4 },
  0x0d: { type: 'float32', bytes: 4 },
  0x0e: { type: 'float64', bytes: 8 },
};

/** Largest element count accepted (guards against absurd headers). */
const MAX_ELEMENTS = 2 ** 31 - 1;

/**
 * Decodes IDX bytes (already decompressed). `file` names the source in error messages.
 * @throws FormatError on a bad magic number, unknown element type, zero dimensions, a size that does not
 *   match the header (truncated file or trailing bytes).
 */
export function parseIdx(bytes: Uint8Array, file = '<idx>'): IdxArray {
  if (bytes.length < 4) throw new FormatError(`too short for an IDX header (${bytes.length} bytes)`, file);
  if (bytes[0] !== 0 || bytes[1] !== 0) {
    throw new FormatError(`not an IDX file: the magic number must start with two zero bytes, got ${hex(bytes[0]!)} ${hex(bytes[1]!)}`, file);
  }
  const t = TYPES[bytes[2]!];
  if (t === undefined) throw new FormatError(`unknown IDX element type ${hex(bytes[2]!)} (expected 08, 09, 0b, 0c, 0d or 0e)`, file);
  const ndim = bytes[3]!;
  if (ndim === 0) throw new FormatError('IDX header declares 0 dimensions', file);
  const headerBytes = 4 + 4 * ndim;
  if (bytes.length < headerBytes) throw new FormatError(`truncated IDX header: ${ndim} dimensions need ${headerBytes} bytes, the file has ${bytes.length}`, file);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dims: number[] = [];
  let count = 1;
  for (let d = 0; d < ndim; d++) {
    const size = view.getUint32(4 + 4 * d, false);
    dims.push(size);
    count *= size;
  }
  if (count > MAX_ELEMENTS) throw new FormatError(`IDX dimensions ${dims.join(' x ')} are too large`, file);
  const expected = headerBytes + count * t.bytes;
  if (bytes.length < expected) {
    throw new FormatError(`truncated IDX file: dimensions ${dims.join(' x ')} of ${t.type} need ${expected} bytes, the file has ${bytes.length}`, file);
  }
  if (bytes.length > expected) {
    throw new FormatError(`IDX file has ${bytes.length - expected} trailing bytes after ${dims.join(' x ')} ${t.type} elements`, file);
  }
  let data: IdxData;
  const off = headerBytes;
  switch (t.type) {
    case 'uint8':
      data = Uint8Array.from(bytes.subarray(off, expected));
      break;
    case 'int8':
      data = new Int8Array(Uint8Array.from(bytes.subarray(off, expected)).buffer);
      break;
    case 'int16': {
      const a = new Int16Array(count);
      for (let i = 0; i < count; i++) a[i] = view.getInt16(off + 2 * i, false);
      data = a;
      break;
    }
    case 'int32': {
      const a = new Int32Array(count);
      for (let i = 0; i < count; i++) a[i] = view.getInt32(off + 4 * i, false);
      data = a;
      break;
    }
    case 'float32': {
      const a = new Float32Array(count);
      for (let i = 0; i < count; i++) a[i] = view.getFloat32(off + 4 * i, false);
      data = a;
      break;
    }
    case 'float64': {
      const a = new Float64Array(count);
      for (let i = 0; i < count; i++) a[i] = view.getFloat64(off + 8 * i, false);
      data = a;
      break;
    }
  }
  return { type: t.type, dims, data };
}

/** Reads and decodes an IDX file (plain or gzip). */
export function loadIdx(path: string): IdxArray {
  return parseIdx(readDataFile(path), path);
}

/** Options of {@link idxToDataset} / {@link loadIdxDataset}. */
export interface IdxDatasetOptions {
  /** Multiplies every value. Default 1/255 for uint8 images, 1 otherwise. */
  scale?: number;
  /** Fixed label mapping (class k has label `labelNames[k]`), e.g. a training set's. Default: distinct labels, sorted. */
  labelNames?: readonly string[];
  /** Names of the files, for error messages. */
  files?: { images?: string; labels?: string };
}

/**
 * Builds a multiclass data set from an images tensor (n x ...: each example flattened) and a labels
 * tensor (n integer labels).
 * @throws FormatError when the counts differ, labels are not integers, values are NaN/Inf, or a label is
 *   outside a fixed `labelNames`.
 */
export function idxToDataset(images: IdxArray, labels: IdxArray, options: IdxDatasetOptions = {}): MulticlassDataset {
  const imgFile = options.files?.images ?? '<images>';
  const lblFile = options.files?.labels ?? '<labels>';
  if (labels.dims.length !== 1) throw new FormatError(`labels must be one-dimensional, got dimensions ${labels.dims.join(' x ')}`, lblFile);
  const n = images.dims[0]!;
  if (labels.dims[0] !== n) throw new FormatError(`${n} images but ${labels.dims[0]} labels (${lblFile})`, imgFile);
  if (n === 0) throw new FormatError('no examples (the first dimension is 0)', imgFile);
  const cols = images.dims.slice(1).reduce((a, b) => a * b, 1);
  const scale = options.scale ?? (images.type === 'uint8' ? 1 / 255 : 1);
  if (!(Number.isFinite(scale) && scale !== 0)) throw new InputError(`scale must be a finite non-zero number, got ${scale}`);

  // Labels -> class ids.
  const raw = labels.data;
  for (let i = 0; i < n; i++) {
    const v = raw[i]!;
    if (!Number.isInteger(v)) throw new FormatError(`label ${i} is ${v}, not an integer`, lblFile);
  }
  let labelNames: string[];
  let classOf: Map<number, number>;
  if (options.labelNames !== undefined) {
    labelNames = [...options.labelNames];
    classOf = new Map(labelNames.map((s, k) => [Number(s), k]));
  } else {
    const distinct = [...new Set(Array.from(raw as ArrayLike<number>))].sort((a, b) => a - b);
    labelNames = distinct.map(String);
    classOf = new Map(distinct.map((v, k) => [v, k]));
  }
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const k = classOf.get(raw[i]!);
    if (k === undefined) throw new FormatError(`label ${raw[i]} of example ${i} is not in the label mapping (${labelNames.join(', ')})`, lblFile);
    y[i] = k;
  }

  // Images -> CSR (zeros omitted).
  const px = images.data;
  let nnz = 0;
  for (let q = 0; q < px.length; q++) {
    const v = px[q]!;
    if (!Number.isFinite(v)) throw new FormatError(`element ${q} (example ${Math.floor(q / cols)}) is ${v}`, imgFile);
    if (v !== 0) nnz++;
  }
  const indptr = new Int32Array(n + 1);
  const indices = new Int32Array(nnz);
  const values = new Float64Array(nnz);
  let p = 0;
  for (let i = 0; i < n; i++) {
    const o = i * cols;
    for (let j = 0; j < cols; j++) {
      const v = px[o + j]!;
      if (v !== 0) {
        indices[p] = j;
        values[p] = v * scale;
        p++;
      }
    }
    indptr[i + 1] = p;
  }
  return { X: { rows: n, cols, indptr, indices, values }, y, numLabels: labelNames.length, labelNames };
}

/**
 * Loads an IDX images file and its labels file. `labelsPath` defaults to the images path with
 * `images-idx3` replaced by `labels-idx1` (the MNIST naming, `.gz` or not). A folder holding exactly one
 * `*images-idx3-ubyte[.gz]` file may be given instead of the images file.
 */
export function loadIdxDataset(imagesPath: string, labelsPath?: string, options: IdxDatasetOptions = {}): MulticlassDataset {
  let images = imagesPath;
  if (existsSync(images) && statSync(images).isDirectory()) {
    const found = readdirSync(images).filter((f) => /images-idx\d-ubyte(\.gz)?$/.test(f));
    if (found.length !== 1) throw new InputError(`${images}: expected exactly one *images-idx?-ubyte[.gz] file, found ${found.length ? found.join(', ') : 'none'}`);
    images = join(images, found[0]!);
  }
  let labels = labelsPath;
  if (labels === undefined) {
    const name = basename(images);
    if (!/images-idx\d/.test(name)) throw new InputError(`cannot infer the labels file of ${images}: give it explicitly (idx:IMAGES,LABELS)`);
    const base = name.replace(/images-idx\d/, 'labels-idx1');
    const candidates = [base, base.endsWith('.gz') ? base.slice(0, -3) : `${base}.gz`].map((f) => join(dirname(images), f));
    labels = candidates.find((f) => existsSync(f));
    if (labels === undefined) throw new InputError(`labels file of ${images} not found (tried ${candidates.join(', ')})`);
  }
  return idxToDataset(loadIdx(images), loadIdx(labels), { ...options, files: { images, labels } });
}

function hex(b: number): string {
  return b.toString(16).padStart(2, '0');
}
