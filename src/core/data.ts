/**
 * Plain data containers shared by loaders and models. Loaders produce these; models consume them.
 */

/** One labelled sequence: T positions, D features each (row-major `x[t*D + j]`), labels `y[t]` in 0..K-1. */
export interface SequenceExample {
  x: Float64Array;
  y: Int32Array;
  /** Optional identifier (e.g. OCR word id) for error messages and traces. */
  id?: number;
}

/** A set of sequences with a common feature dimension D and K labels. */
export interface SequenceDataset {
  examples: SequenceExample[];
  numFeatures: number;
  numLabels: number;
  /** Names of the K labels, e.g. 'a'..'z' for OCR. */
  labelNames: string[];
}

/** Sparse rows in CSR form: row r has entries indices[indptr[r]..indptr[r+1]) (0-based, strictly increasing). */
export interface CsrMatrix {
  rows: number;
  cols: number;
  indptr: Int32Array;
  indices: Int32Array;
  values: Float64Array;
}

/** A multiclass data set: features (CSR), labels in 0..K-1 and the original label names. */
export interface MulticlassDataset {
  X: CsrMatrix;
  y: Int32Array;
  numLabels: number;
  /** Original label tokens of the file, in the order of class ids. */
  labelNames: string[];
}
