/**
 * The optional peer packages (package.json `peerDependencies`, all optional): vega and vega-lite draw figures,
 * @resvg/resvg-js renders them to PNG, sharp decodes and writes images (horses, LSP). A user of the trainer or of
 * `gapbcfw/native` installs and loads none of them; a feature that needs one loads it when first used, and a
 * missing one is a {@link MissingPeerError} naming the package and the version to install.
 * @module
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { MissingPeerError } from '../core/errors.js';
import { packageRoot } from '../core/package-root.js';

/** The optional peers and the features that need them. */
export type OptionalPeer = 'vega' | 'vega-lite' | '@resvg/resvg-js' | 'sharp';

let versions: Record<string, string> | undefined;

/** The version range package.json asks for (what the message tells the user to install). */
function wanted(name: OptionalPeer): string {
  versions ??= (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { peerDependencies?: Record<string, string> }).peerDependencies ?? {};
  return versions[name] ?? 'latest';
}

/** Whether `e` says that `name` itself (not something it imports) could not be found. */
function isMissing(e: unknown, name: string): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && (e as Error).message.includes(`'${name}'`);
}

/** Imports an optional peer (ESM). @throws MissingPeerError when it is not installed. */
export async function importPeer<T>(name: OptionalPeer, feature: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (e) {
    throw isMissing(e, name) ? new MissingPeerError(name, feature, wanted(name)) : e;
  }
}

/** Requires an optional peer (a CommonJS package with a native binding). @throws MissingPeerError when it is not installed. */
export function requirePeer<T>(name: OptionalPeer, feature: string): T {
  try {
    return createRequire(import.meta.url)(name) as T;
  } catch (e) {
    throw isMissing(e, name) ? new MissingPeerError(name, feature, wanted(name)) : e;
  }
}
