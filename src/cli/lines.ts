/**
 * Text lines of a file or of stdin, streamed: each line is handed on as soon as it has arrived (a pipe that
 * stays open is read as it fills), gzip input is recognised by its magic bytes, a UTF-8 BOM and CR line ends are
 * dropped.
 * @module
 */
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';

/** Lines of `source` (`-` = `stdin`). */
export async function* textLines(source: string, stdin: NodeJS.ReadableStream): AsyncGenerator<string> {
  const input = source === '-' ? stdin : createReadStream(source);
  const chunks = input[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const first = await chunks.next();
  if (first.done) return;
  const head = Buffer.from(first.value);
  async function* all(): AsyncGenerator<Buffer> {
    yield head;
    for (;;) {
      const r = await chunks.next();
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
