/**
 * `gapbcfw watch TRACE.jsonl`: a web page of a training run that updates as its trace grows (duality gap exact and
 * estimated against passes and time, primal and dual, test metrics, oracle calls per second), served on localhost
 * by default. The page is the report of `gapbcfw plot --html` (src/plot/html.ts) fed by server-sent events.
 * @module
 */
import { createServer, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { basename } from 'node:path';
import { GapbcfwError } from '../core/errors.js';
import { TraceFollower, htmlReport, type ReportRow } from '../plot/html.js';
import { positional, value, type Command } from './args.js';
import { UsageError, report } from './common.js';
import { REPORT_OPTIONS } from './options.js';
import { withInterrupts } from './session.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export const watchCommand: Command = {
  name: 'watch',
  summary: 'a live web page of a training run as its trace grows (gap, objectives, test metrics, oracle calls/s), on localhost',
  description:
    'Serves http://HOST:PORT/: the charts of gapbcfw plot --html, updated as TRACE grows (the file of gapbcfw train\n' +
    '--trace, which may not exist yet; a trace that starts over, e.g. a new run into the same file, starts the page over).\n' +
    'It listens on 127.0.0.1 unless --host says otherwise: from another machine, forward the port (ssh -L 8080:localhost:8080\n' +
    'HOST) rather than exposing the run. Ctrl-C stops it.',
  positionals: [{ name: 'TRACE', help: 'a .jsonl trace, read as it grows', input: 'file' }],
  options: [
    { name: 'port', type: 'integer', value: 'P', min: 0, max: 65535, help: 'port to listen on (0: any free port, printed)', default: '8080' },
    { name: 'host', type: 'string', value: 'ADDRESS', help: 'address to listen on (another than loopback makes the page reachable from the network)', default: '127.0.0.1' },
    { name: 'interval', type: 'number', value: 'SECONDS', min: 0.05, max: 3600, help: 'how often the trace is read', default: '0.5' },
    ...REPORT_OPTIONS,
  ],
  run: async (a, io) => {
    const trace = positional(a, 0);
    const host = value.string(a, 'host') ?? '127.0.0.1';
    if (host !== 'localhost' && isIP(host) === 0) throw new UsageError(`--host must be an IP address or localhost, got '${host}'`);
    const port = value.number(a, 'port') ?? 8080;
    const interval = (value.number(a, 'interval') ?? 0.5) * 1000;
    const quiet = value.flag(a, 'quiet');
    const follower = new TraceFollower(trace);
    const rows: ReportRow[] = [];
    const clients = new Set<ServerResponse>();
    const send = (res: ServerResponse, data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    const page = htmlReport({ title: `gapbcfw watch: ${basename(trace)}`, rows: [], live: 'events' });
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET') {
        res.writeHead(405, { allow: 'GET' }).end();
      } else if (path === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page);
      } else if (path === '/events') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
        send(res, rows);
        clients.add(res);
        req.on('close', () => clients.delete(res));
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      }
    });
    let lastError = '';
    const poll = () => {
      try {
        const { reset, rows: added } = follower.poll();
        if (reset) {
          rows.length = 0;
          for (const c of clients) send(c, { reset: true });
        }
        if (added.length > 0) {
          rows.push(...added);
          for (const c of clients) send(c, added);
        }
        lastError = '';
      } catch (e) {
        if (!(e instanceof GapbcfwError)) throw e;
        // A malformed line (a FormatError naming it): said once, the lines after it are still read.
        if (e.message !== lastError && !quiet) io.stderr.write(`gapbcfw: ${e.message}\n`);
        lastError = e.message;
      }
    };
    poll();
    await new Promise<void>((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? new UsageError(`--port ${port}: ${host}:${port} is in use (another watch? --port 0 picks a free one)`) : e));
      server.listen(port, host, resolve);
    });
    const address = server.address();
    const actualPort = typeof address === 'object' && address ? address.port : port;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}/`;
    if (!quiet) {
      io.stderr.write(`watching ${trace} at ${url} (Ctrl-C stops)\n`);
      if (!LOOPBACK.has(host)) io.stderr.write(`gapbcfw: note: --host ${host} makes the page reachable from the network\n`);
    }
    const timer = setInterval(poll, interval);
    const keepAlive = setInterval(() => clients.forEach((c) => c.write(': keep-alive\n\n')), 15_000);
    const code = await withInterrupts(io, 'closing the server', (signal) => new Promise<number>((resolve) => signal.addEventListener('abort', () => resolve(0), { once: true })));
    clearInterval(timer);
    clearInterval(keepAlive);
    for (const c of clients) c.end();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    report({ command: 'watch', trace, url, events: rows.length }, value.flag(a, 'json'), io, `served ${rows.length} events of ${trace} at ${url}`);
    return code;
  },
};
