/**
 * Decoding image files (Weizmann horses, LSP) with sharp, so that a missing, empty, truncated or corrupt
 * image is a one-line error naming the file rather than a stack trace from the decoder.
 * @module
 */
import { statSync } from 'node:fs';
import type { Sharp } from 'sharp';
import { FormatError, InputError } from '../core/errors.js';
import { importPeer } from '../io/peers.js';

/**
 * Runs `decode` on a sharp pipeline of `path` (sharp fails on truncated data by default: `failOn: 'warning'`).
 * @throws InputError when the file does not exist; FormatError naming it when it is empty or cannot be decoded.
 */
export async function decodeImage<T>(path: string, decode: (image: Sharp) => Promise<T>): Promise<T> {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) throw new InputError(`no such image: ${path}`);
  if (!st.isFile()) throw new InputError(`${path} is not an image file`);
  if (st.size === 0) throw new FormatError('empty image file (0 bytes)', path);
  const { default: sharp } = await importPeer<typeof import('sharp')>('sharp', 'reading images');
  try {
    return await decode(sharp(path));
  } catch (e) {
    const message = (e as Error).message ?? String(e);
    const reason = /unsupported image format/.test(message) ? 'not an image in a format sharp reads' : message.split('\n')[0]!;
    throw new FormatError(`cannot decode the image (${reason})`, path);
  }
}
