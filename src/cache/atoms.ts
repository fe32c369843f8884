/**
 * Per-block store of labels with their dual weights (2016 paper, Sec. 3.3 and App. B; [G] cache_*.m):
 * the active set alpha_i(y) > 0 of the pairwise/away steps and, with caching, inactive labels kept
 * for the cache oracle. Labels are stored, not feature vectors (DESIGN seam 5): each label is scored
 * against the current w through Problem.labelScores, and psi is built only for the chosen corners.
 * The ground truth (psi = 0, loss 0) starts with weight 1.
 */
export class BlockAtoms<Y> {
  readonly labels: Y[] = [];
  readonly keys: string[] = [];
  /** Dual weights alpha_i(y); they sum to 1 unless `exact` is false. */
  readonly alpha: number[] = [];
  /** Unscaled losses L_i(y). */
  readonly loss: number[] = [];
  /** False once an active atom was evicted (FW-only caching): w_i stays authoritative, alpha is approximate. */
  exact = true;

  get size(): number {
    return this.labels.length;
  }

  indexOf(key: string): number {
    return this.keys.indexOf(key);
  }

  add(label: Y, key: string, loss: number, alpha = 0): number {
    this.labels.push(label);
    this.keys.push(key);
    this.loss.push(loss);
    this.alpha.push(alpha);
    return this.labels.length - 1;
  }

  /** Removes atom k (swap with the last; indices of other atoms may change). */
  remove(k: number): void {
    const last = this.labels.length - 1;
    for (const a of [this.labels, this.keys, this.alpha, this.loss] as unknown[][]) {
      a[k] = a[last];
      a.pop();
    }
  }

  /** Removes every atom. */
  clear(): void {
    for (const a of [this.labels, this.keys, this.alpha, this.loss] as unknown[][]) a.length = 0;
  }

  activeCount(): number {
    let c = 0;
    for (const a of this.alpha) if (a > 0) c++;
    return c;
  }
}
