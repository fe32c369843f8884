/** The `items`/`count` options of a prepared native object's call for engine {@link Items} (none: every example). */
import type { Items } from '../core/batch.js';

export function itemsOption(items: Items | null): { items?: Int32Array; count?: number } {
  return items ? { items: items.indices, count: items.count } : {};
}
