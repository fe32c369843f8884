// The CLI as a child process (node --import tsx src/cli/main.ts), for real signals, locks held by another process
// and memory limits.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
/** The command line that runs the CLI from source. */
export const CLI = [process.execPath, '--import', 'tsx', join(root, 'src/cli/main.ts')];

export interface Child {
  proc: ChildProcess;
  /** The exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when stdout (or stderr) matches; rejects if the child exits first. */
  waitFor: (re: RegExp, stream?: 'stdout' | 'stderr') => Promise<void>;
}

/** Starts `gapbcfw ARGS` (optionally under another program, e.g. `prlimit --data=N`) with piped stdout and stderr. */
export function start(args: string[], options: { stdin?: 'pipe' | 'ignore'; wrapper?: string[] } = {}): Child {
  const [program, ...rest] = [...(options.wrapper ?? []), ...CLI, ...args];
  const proc = spawn(program!, rest, { cwd: root, stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'] });
  const text = { stdout: '', stderr: '' };
  const waiting: { re: RegExp; stream: 'stdout' | 'stderr'; resolve: () => void }[] = [];
  const check = () => {
    for (const w of [...waiting]) if (w.re.test(text[w.stream])) waiting.splice(waiting.indexOf(w), 1) && w.resolve();
  };
  proc.stdout!.on('data', (b) => ((text.stdout += b), check()));
  proc.stderr!.on('data', (b) => ((text.stderr += b), check()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const waitFor = (re: RegExp, stream: 'stdout' | 'stderr' = 'stderr') =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ re, stream, resolve });
      check();
      void exited.then(() => reject(new Error(`exited before ${re}: ${text.stderr}`)));
    });
  return { proc, exited, stdout: () => text.stdout, stderr: () => text.stderr, waitFor };
}

/** Resolves once `test()` holds, polling every 10 ms; rejects when `child` exits first. */
export async function until(test: () => boolean, child: Child): Promise<void> {
  let gone = false;
  void child.exited.then(() => (gone = true));
  while (!test()) {
    if (gone) throw new Error(`the child exited first: ${child.stderr()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Resolves once `test()` holds while `child` is stopped (SIGSTOP), and leaves it stopped: the state the test saw is
 * the state a SIGKILL then ends it in (a running child could write past it between the check and the kill).
 */
export async function stoppedWhen(test: () => boolean, child: Child): Promise<void> {
  for (;;) {
    await until(test, child);
    child.proc.kill('SIGSTOP');
    if (test()) return;
    child.proc.kill('SIGCONT');
  }
}
