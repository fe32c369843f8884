/**
 * Text lines of a file or of stdin, streamed: each line is handed on as soon as it has arrived (a pipe that
 * stays open is read as it fills), gzip input is recognised by its magic bytes, a UTF-8 BOM and CR line ends are
 * dropped.
 * @module
 */
import { openInputStream } from '../io/input.js';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';

/** Lines of `source` (`-` = `stdin`); after `signal` aborts, no more input is waited for. */
export async function* textLines(source: string, stdin: NodeJS.ReadableStream, signal?: AbortSignal): AsyncGenerator<string> {
  const input = source === '-' ? stdin : openInputStream(source);
  const chunks = input[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  // A pipe kept open by its writer must not hold a stopped run: the abort ends the input.
  const stopped = new Promise<IteratorResult<Buffer | string>>((resolve) => {
    if (signal?.aborted) resolve({ done: true, value: undefined });
    signal?.addEventListener('abort', () => resolve({ done: true, value: undefined }), { once: true });
  });
  const next = async () => {
    const r = await Promise.race([chunks.next(), stopped]);
    if (r.done && signal?.aborted) (input as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
    return r;
  };
  const first = await next();
  if (first.done) return;
  const head = Buffer.from(first.value);
  async function* all(): AsyncGenerator<Buffer> {
    yield head;
    for (;;) {
      const r = await next();
      if (r.done) return;
      yield Buffer.from(r.value);
    }
  }
  const bytes: AsyncIterable<Buffer> = head[0] === 0x1f && head[1] === 0x8b ? Readable.from(all()).pipe(createGunzip()) : all();
  const decoder = new StringDecoder('utf8');
  let carry = '';
  let start = true;
  for await (const chunk of bytes) {
    carry += decoder.write(chunk);
    if (start && carry.length > 0) {
      if (carry.charCodeAt(0) === 0xfeff) carry = carry.slice(1);
      start = false;
    }
    let nl: number;
    while ((nl = carry.indexOf('\n')) >= 0) {
      yield carry.slice(0, nl).replace(/\r$/, '');
      carry = carry.slice(nl + 1);
    }
  }
  carry += decoder.end();
  if (carry !== '') yield carry.replace(/\r$/, '');
}
