import { runAlign } from '../src/cli/align.js';
const io = { stdout: process.stdout, stderr: process.stderr };
const code = await runAlign(process.argv.slice(2), io as any);
console.error('exit', code);
