/**
 * The peers of the benchmarks come from Debian packages, installed by the benchmark that needs them (never a dependency
 * of gapbcfw): `installed(header, package)` installs `package` with apt-get when `header` is missing (root only).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export function installed(header: string, pkg: string): void {
  if (existsSync(header)) return;
  if (process.getuid?.() !== 0) throw new Error(`${pkg} is not installed (${header} missing) and installing it needs root`);
  process.stderr.write(`installing ${pkg} (apt-get)\n`);
  execFileSync('apt-get', ['update'], { stdio: 'ignore' });
  execFileSync('apt-get', ['install', '-y', pkg], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}
