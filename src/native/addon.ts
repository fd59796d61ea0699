// The addon itself: the TypeScript twin of crates/quiver-node/src/lib.rs (the crate root, whose
// exports NativeBinding lists), tested in addon.test.ts. The only file that loads the Rust
// addon; everything else goes through the typed wrappers beside it, so the native surface stays
// small, typed and replaceable in tests.
import { createRequire } from 'node:module';
import type { CompletionChannelHandle, Deliver } from './completions.js';
import type { NativeSparseIndexClass } from './sparse-index-binding.js';
import type { NativeVectorIndexClass } from './vector-index-binding.js';

/** What `checkStoreTables` found: the first damaged file in name order, if any, and why. */
export interface NativeTablesReport {
  files: number;
  bytes: number;
  damagedPath?: string | null;
  problem?: string | null;
}

/** What the addon exports; keep in step with crates/quiver-node/src/lib.rs. */
export interface NativeBinding {
  /** Dot product of two equal-length vectors, read in place (no copy). */
  dot(left: Float32Array, right: Float32Array): number;
  /** CRC-32C of a byte buffer, read in place (the CPU's CRC instruction where present). */
  crc32c(bytes: Uint8Array): number;
  /**
   * Checks every block of the named table files of a store directory against its CRC-32C, on the
   * addon's threads; twin of `checkTable` in src/storage/leveldb-table-check.ts.
   */
  checkStoreTables(directory: string, names: string[]): Promise<NativeTablesReport>;
  /**
   * Writes into `into` the number the API prints for each of `length` values of `values` from
   * `offset`: the shortest decimal that reads back as the same float32. Twin of
   * `float32ToNumber` (src/points/vectors.ts).
   */
  shortestDecimals(values: Float32Array, offset: number, length: number, into: Float64Array): void;
  /**
   * The JSON text `[v0,v1,…]` of `length` values of `values` from `offset`, each as
   * `JSON.stringify` writes the number `shortestDecimals` gives for it. Twin: `JSON.stringify` of
   * `float32RowToNumbers` (src/points/float32-row.ts).
   */
  jsonNumberRow(values: Float32Array, offset: number, length: number): string;
  /**
   * The JSON text `[{"id":…,"version":…,"score":…},…]` of the first `count` entries of the three
   * arrays, as `JSON.stringify` writes it, or null when an id or version is not a whole number
   * from 0 to 2^53 - 1 or a score is not finite. Twin: the TypeScript writer in
   * src/json/scored-answer-text.ts.
   */
  scoredPointsJson(ids: Float64Array, versions: Float64Array, scores: Float64Array, count: number): string | null;
  /**
   * Reads the rest of a JSON array of numbers (what follows its `[` or a comma, through its `]`,
   * the text's last character) into `into` from `offset`: how many, or -1 where JSON.parse would
   * read the text otherwise or refuse it, or `into` has too few places.
   */
  readJsonNumbers(text: string, into: Float64Array, offset: number): number;
  /**
   * The arrays of at least `minimumCount` numbers in a JSON text, outside its strings, read into
   * `into` one after another: four numbers per array (its start and end in the text, `[` to just
   * after `]`, and its first place and count in `into`). An array of other values, with a number
   * beyond ±2^53 or one JSON.parse would read otherwise, or without room left in `into` is left out.
   */
  findJsonNumberArrays(text: string, minimumCount: number, into: Float64Array): number[];
  /** findJsonNumberArrays over a UTF-8 text's bytes (a request body's Buffer), positions in bytes. */
  findJsonNumberArraysInBytes(bytes: Uint8Array, minimumCount: number, into: Float64Array): number[];
  /** The SIMD instruction set the kernel chose at run time, e.g. "avx2+fma". */
  instructionSet(): string;
  /** Whether indexes made from now on ask for huge pages (`storage.huge_pages`). */
  setHugePages(enabled: boolean): void;
  /** crates/quiver-node/src/vector_index.rs, wrapped by vector-index.ts. */
  NativeVectorIndex: NativeVectorIndexClass;
  /** crates/quiver-node/src/sparse_index.rs, wrapped by sparse-index.ts. */
  NativeSparseIndex: NativeSparseIndexClass;
  /** crates/quiver-node/src/completions.rs, wrapped by completions.ts. */
  CompletionChannel: new (deliver: Deliver) => CompletionChannelHandle;
}

// Same relative path from src/native (tests), dist/native (built server) and dist/server (the
// bundle and its chunks, scripts/build-server.mjs).
const require = createRequire(import.meta.url);
export const native: NativeBinding = require('../../native/index.cjs') as NativeBinding;
