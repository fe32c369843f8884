import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root: the nearest folder above this module whose package.json names gapbcfw. Works from
 * src/ (vitest, tsx) and from dist/src/ (tsc output) alike.
 */
export const packageRoot: string = (() => {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'gapbcfw') return dir;
      } catch {
        // not ours (or unreadable): keep walking up
      }
    }
    if (dirname(dir) === dir) throw new Error(`gapbcfw: no package.json above ${start}`);
  }
})();
