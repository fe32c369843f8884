/**
 * The single place that decides where real data sets live.
 *
 * Tests, benchmarks and the CLI find data through {@link dataPath} / {@link hasData}, so that one
 * environment variable (`GAPBCFW_DATA`) relocates everything, and tests can skip cleanly when a data
 * set is absent.
 */
import { existsSync } from 'node:fs';
import { readInputFile, textOf } from '../io/input.js';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FormatError } from '../core/errors.js';
import { packageRoot } from '../core/package-root.js';

/**
 * Root folder of the data sets: `$GAPBCFW_DATA` when set (and non-empty), otherwise `../shared/data`
 * relative to the package root.
 */
export function dataRoot(): string {
  const env = process.env.GAPBCFW_DATA;
  if (env !== undefined && env !== '') return resolve(env);
  return resolve(packageRoot, '..', 'shared', 'data');
}

/** Absolute path of a file or folder under {@link dataRoot}, e.g. `dataPath('ocr', 'letter.data.gz')`. */
export function dataPath(...parts: string[]): string {
  return resolve(dataRoot(), ...parts);
}

/** Whether {@link dataPath}(...parts) exists. */
export function hasData(...parts: string[]): boolean {
  return existsSync(dataPath(...parts));
}

/**
 * Reads a data file into memory, transparently decompressing gzip. Compression is detected from the
 * gzip magic bytes (1f 8b), not from the file name, so `letter.data` and `letter.data.gz` both work
 * whatever they are called.
 *
 * @throws InputError when the file cannot be read; FormatError when gzip data is corrupt or truncated.
 */
export function readDataFile(path: string): Uint8Array {
  const raw = readInputFile(path);
  return isGzip(raw) ? gunzipOrThrow(raw, path) : raw;
}

/**
 * {@link readDataFile} as text (UTF-8, or Latin-1 for the OCR files): binary data is refused with one line naming
 * the file, its bytes never quoted as tokens.
 * @throws InputError when the file cannot be read; FormatError for corrupt gzip or binary data.
 */
export function readDataText(path: string, encoding: 'utf8' | 'latin1' = 'utf8'): string {
  return textOf(readDataFile(path), path, encoding);
}

/** Whether `bytes` starts with the gzip magic number 1f 8b. */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

function gunzipOrThrow(raw: Buffer, path: string): Buffer {
  try {
    return gunzipSync(raw);
  } catch (e) {
    const why = (e as Error).message;
    throw new FormatError(`corrupt or truncated gzip data (${why})`, path);
  }
}

/**
 * The lines of a text with 1-based line numbers from `firstLine` (
 or 
 endings), for loaders that report lines
 * in errors. A byte array of UTF-8 is decoded line by line (files larger than the longest string V8 can hold are
 * read so).
 */
export function* textLines(text: string | Uint8Array, firstLine = 1): Generator<{ line: string; lineNo: number }> {
  const utf8 = new TextDecoder();
  let start = 0;
  let lineNo = firstLine - 1;
  while (start < text.length) {
    let end = typeof text === 'string' ? text.indexOf('\n', start) : text.indexOf(0x0a, start);
    if (end < 0) end = text.length;
    lineNo++;
    const line = typeof text === 'string' ? text.slice(start, end) : utf8.decode(text.subarray(start, end));
    start = end + 1;
    yield { line: line.endsWith('\r') ? line.slice(0, -1) : line, lineNo };
  }
}
