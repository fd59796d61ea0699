// A multivector (docs/api.md §20, docs/architecture.md §17): a point's vector is a matrix of
// n rows of `dimension` values, scored against a query matrix by MaxSim. This index keeps the
// kernel's dense HNSW untouched: every row of every point is a node ("sub-slot") of one ordinary
// kernel VectorIndex, and this class maps sub-slots to the point's slot. A search asks the graph
// for the nearest rows of each query row, turns them into candidate points, and scores the
// promising ones exactly with MaxSim through the kernel's own distance routine (scoreSlots); the exact scan
// (`exact`, a small or restrictive allowed set, the graph out of use) scores every allowed point
// the same way and is the slow twin the tests compare the graph path with.
//
// It implements the engine's VectorIndex contract, so the write path, checkpoints, statistics and
// reads treat it like any dense index (its checkpoint: the rows' kernel checkpoint plus the
// sub-slot map file of multi-vector-checkpoint.ts); the calls whose shape assumes one row per slot are the
// exceptions (upsert: use upsertRows below; vectors: one slot's matrix, or matrices()).
import { createVectorIndex } from '../native/index.js';
import type {
  KernelMemoryReport,
  KernelQuantization,
  QuantizationStatus,
  SearchOptions,
  SearchResult,
  VectorIndex,
  VectorIndexOptions,
  VectorIndexStats,
} from '../native/vector-index-contract.js';
import { replaceFileAtomically } from '../storage/atomic-file.js';
import { encodeMultivectorMap, multivectorMapPath, noParent, type MultivectorMap } from './multi-vector-checkpoint.js';

/** MaxSim: for Cosine/Dot larger is better; for Euclid/Manhattan (distances) smaller is better. */
function largerIsBetter(distance: VectorIndex['distance']): boolean {
  return distance === 'Cosine' || distance === 'Dot';
}

/** `rows` (row-major, `dimension` wide) with every row scaled to unit length; zero rows stay zero. */
export function normalizedRows(rows: Float32Array, dimension: number): Float32Array {
  const result = new Float32Array(rows.length);
  for (let start = 0; start < rows.length; start += dimension) {
    let squares = 0;
    for (let position = start; position < start + dimension; position += 1) squares += rows[position]! * rows[position]!;
    const norm = Math.sqrt(squares);
    for (let position = start; position < start + dimension; position += 1) result[position] = norm > 0 ? rows[position]! / norm : rows[position]!;
  }
  return result;
}

export class MultiVectorIndex implements VectorIndex {
  readonly multivector = true as const;
  readonly dimension: number;
  readonly distance: VectorIndex['distance'];
  /** Rows are float32: other datatypes are refused for multivectors at create (docs/api.md §20). */
  readonly datatype = 'float32' as const;
  /** The rows, one kernel node each. */
  private readonly rows: VectorIndex;
  /** Sub-slots of each point's rows, in row order. */
  private readonly subSlotsOf = new Map<number, Uint32Array>();
  /** The point slot of each sub-slot (noParent when free). */
  private parentOf = new Uint32Array(1024).fill(noParent);
  private nextSubSlot = 0;
  /** Free sub-slots, reusable now. */
  private readonly free: number[] = [];
  /**
   * Sub-slots freed while a search was running: that search may still map them to a point, so
   * they are reused only once no search runs (the same rule the point table keeps for slots).
   */
  private freedDuringSearch: number[] = [];
  private runningSearches = 0;
  /** Candidates the graph path has scored exactly so far (bench:multivector reports it per query). */
  rescored = 0;
  private readonly fullScanThreshold: number;
  /** Each query row's candidate list when the search names no `hnsw_ef`, as the kernel's own. */
  private readonly defaultEf: number;

  constructor(options: VectorIndexOptions, rows: VectorIndex = createVectorIndex(options)) {
    this.dimension = options.dimension;
    this.distance = options.distance;
    this.fullScanThreshold = options.fullScanThreshold;
    this.defaultEf = options.efConstruct;
    this.rows = rows;
  }

  // ---- writes ------------------------------------------------------------------------------------

  private allocate(parent: number): number {
    const subSlot = this.free.pop() ?? this.nextSubSlot++;
    if (subSlot >= this.parentOf.length) {
      const grown = new Uint32Array(Math.max(this.parentOf.length * 2, subSlot + 1)).fill(noParent);
      grown.set(this.parentOf);
      this.parentOf = grown;
    }
    this.parentOf[subSlot] = parent;
    return subSlot;
  }

  private release(subSlots: Uint32Array): void {
    for (const subSlot of subSlots) this.parentOf[subSlot] = noParent;
    if (this.runningSearches > 0) this.freedDuringSearch.push(...subSlots);
    else this.free.push(...subSlots);
  }

  /** Inserts or replaces the matrices of `slots` (`matrices[i]`: n·dimension values, n ≥ 1). */
  async upsertMatrices(slots: Uint32Array, matrices: readonly Float32Array[]): Promise<void> {
    const replaced: Uint32Array[] = [];
    let total = 0;
    for (const matrix of matrices) total += matrix.length;
    const subSlots = new Uint32Array(total / this.dimension);
    const values = new Float32Array(total);
    let row = 0;
    slots.forEach((slot, position) => {
      const old = this.subSlotsOf.get(slot);
      if (old) replaced.push(old);
      const matrix = matrices[position]!;
      const own = new Uint32Array(matrix.length / this.dimension);
      for (let index = 0; index < own.length; index += 1) own[index] = this.allocate(slot);
      this.subSlotsOf.set(slot, own);
      subSlots.set(own, row);
      values.set(matrix, row * this.dimension);
      row += own.length;
    });
    const old = joined(replaced, (length) => new Uint32Array(length));
    // The old rows leave the kernel before their sub-slots can be handed out again.
    if (old.length > 0) await this.rows.delete(old);
    if (subSlots.length > 0) await this.rows.upsert(subSlots, values);
    this.release(old);
  }

  /** The contract's one-row-per-slot form: each slot gets a one-row matrix. */
  upsert(slots: Uint32Array, vectors: Float32Array): Promise<void> {
    const matrices = Array.from(slots, (_slot, position) => vectors.subarray(position * this.dimension, (position + 1) * this.dimension));
    return this.upsertMatrices(slots, matrices);
  }

  async delete(slots: Uint32Array): Promise<void> {
    const removed: Uint32Array[] = [];
    for (const slot of slots) {
      const own = this.subSlotsOf.get(slot);
      if (!own) continue;
      removed.push(own);
      this.subSlotsOf.delete(slot);
    }
    const old = joined(removed, (length) => new Uint32Array(length));
    if (old.length > 0) await this.rows.delete(old);
    this.release(old);
  }

  // ---- reads ----------------------------------------------------------------------------------------

  has(slot: number): boolean {
    return this.subSlotsOf.has(slot);
  }

  /** Rows of `slot` (Cosine: normalised), or undefined when it holds no matrix. */
  matrix(slot: number): Float32Array | undefined {
    const own = this.subSlotsOf.get(slot);
    return own ? this.rows.vectors(own) : undefined;
  }

  /**
   * The contract's row-per-slot read, for one slot: its whole matrix (n·dimension values); a
   * NaN-filled row when it holds none. Several slots: their matrices back to back (use matrix()).
   */
  vectors(slots: Uint32Array): Float32Array {
    const parts = Array.from(slots, (slot) => this.matrix(slot) ?? new Float32Array(this.dimension).fill(Number.NaN));
    if (parts.length === 1) return parts[0]!;
    return joined(parts, (length) => new Float32Array(length));
  }

  /** While a search runs, freed sub-slots are not reused (see freedDuringSearch). */
  private async searching<Result>(work: () => Promise<Result>): Promise<Result> {
    this.runningSearches += 1;
    try {
      return await work();
    } finally {
      this.runningSearches -= 1;
      if (this.runningSearches === 0 && this.freedDuringSearch.length > 0) {
        this.free.push(...this.freedDuringSearch);
        this.freedDuringSearch = [];
      }
    }
  }

  /**
   * MaxSim of `query` (rows back to back) against each of `slots`: the sum over query rows of the
   * best score of that row against any row of the point, each pair scored by the kernel's own
   * routine in the wire convention (docs/api.md §4.4). NaN for a slot without a matrix.
   */
  scoreSlots(query: Float32Array, slots: Uint32Array): Promise<Float32Array> {
    return this.searching(() => this.maxSim(query, slots));
  }

  private async maxSim(query: Float32Array, slots: Uint32Array): Promise<Float32Array> {
    const larger = largerIsBetter(this.distance);
    const owners: number[] = [];
    const subSlotList: Uint32Array[] = [];
    slots.forEach((slot, position) => {
      const own = this.subSlotsOf.get(slot);
      if (!own) return;
      owners.push(position);
      subSlotList.push(own);
    });
    const scores = new Float32Array(slots.length).fill(Number.NaN);
    if (owners.length === 0) return scores;
    const subSlots = joined(subSlotList, (length) => new Uint32Array(length));
    const sums = new Float64Array(owners.length);
    const missing = new Uint8Array(owners.length);
    for (let start = 0; start < query.length; start += this.dimension) {
      const pairScores = await this.rows.scoreSlots(query.subarray(start, start + this.dimension), subSlots);
      let offset = 0;
      subSlotList.forEach((own, owner) => {
        let best = larger ? -Infinity : Infinity;
        for (let row = 0; row < own.length; row += 1) {
          const score = pairScores[offset + row]!;
          if (Number.isNaN(score)) continue;
          if (larger ? score > best : score < best) best = score;
        }
        offset += own.length;
        if (!Number.isFinite(best)) missing[owner] = 1;
        else sums[owner]! += best;
      });
    }
    owners.forEach((position, owner) => {
      if (missing[owner] === 0) scores[position] = sums[owner]!;
    });
    return scores;
  }

  /** Live slots (with `allowed`, only those its bits admit). */
  private candidates(allowed?: Uint8Array): number[] {
    const slots: number[] = [];
    for (const slot of this.subSlotsOf.keys()) {
      if (allowed && ((allowed[slot >> 3] ?? 0) & (1 << (slot & 7))) === 0) continue;
      slots.push(slot);
    }
    return slots;
  }

  /** The sub-slot bitset of the rows of the points `allowed` admits. */
  private allowedRows(allowed: Uint8Array): Uint8Array {
    const bits = new Uint8Array((this.nextSubSlot >> 3) + 1);
    for (const [slot, own] of this.subSlotsOf) {
      if (((allowed[slot >> 3] ?? 0) & (1 << (slot & 7))) === 0) continue;
      for (const subSlot of own) bits[subSlot >> 3]! |= 1 << (subSlot & 7);
    }
    return bits;
  }

  /** The k best of `slots` by exact MaxSim. */
  private async bestOf(query: Float32Array, slots: number[], k: number): Promise<SearchResult> {
    const scores = await this.maxSim(query, Uint32Array.from(slots));
    const larger = largerIsBetter(this.distance);
    const order = slots.map((_slot, position) => position).filter((position) => !Number.isNaN(scores[position]));
    order.sort((left, right) => (larger ? scores[right]! - scores[left]! : scores[left]! - scores[right]!) || slots[left]! - slots[right]!);
    const best = order.slice(0, k);
    return { slots: Uint32Array.from(best, (position) => slots[position]!), scores: Float32Array.from(best, (position) => scores[position]!) };
  }

  /**
   * The k points with the best MaxSim to `query` (n rows back to back). Graph path: each query
   * row's max(k, ef) nearest rows give candidate points, scored exactly in order of an estimate
   * (rescoreByEstimate); exact path: every allowed point scored.
   */
  search(query: Float32Array, k: number, options: SearchOptions = {}): Promise<SearchResult> {
    return this.searching(async () => {
      if (k <= 0 || this.subSlotsOf.size === 0) return { slots: new Uint32Array(0), scores: new Float32Array(0) };
      const normalized = this.distance === 'Cosine' ? normalizedRows(query, this.dimension) : query;
      const allowedSlots = options.allowed ? this.candidates(options.allowed) : undefined;
      // full_scan_threshold is a size of vectors (docs/api.md §4.3): here, of the rows a scan reads.
      const scannedRows = ((allowedSlots?.length ?? this.subSlotsOf.size) * this.rows.liveCount()) / this.subSlotsOf.size;
      if (options.exact === true || scannedRows <= this.fullScanThreshold) {
        return this.bestOf(normalized, allowedSlots ?? this.candidates(), k);
      }
      const perRow = Math.max(k, options.ef ?? this.defaultEf);
      const rowOptions: SearchOptions = { ef: perRow, ...(options.allowed ? { allowed: this.allowedRows(options.allowed) } : {}), ...(options.quantization ? { quantization: options.quantization } : {}) };
      const found = await this.rows.searchBatch(normalized, perRow, rowOptions);
      return this.rescoreByEstimate(normalized, found, k);
    });
  }

  /**
   * The candidates of the per-row results, scored exactly in order of an optimistic estimate,
   * until no remaining candidate's estimate can beat the k-th exact score. The estimate of a
   * point sums, per query row, its best row in that row's result list, or — when none of its rows
   * made the list — the list's worst score: as good as any row outside the list can be (when the
   * list is the true nearest rows). So exact scoring stops early without changing the answer for
   * an exact candidate search, and the graph's recall is what `hnsw_ef` buys.
   */
  private async rescoreByEstimate(query: Float32Array, found: SearchResult[], k: number): Promise<SearchResult> {
    const larger = largerIsBetter(this.distance);
    const better = (left: number, right: number) => (larger ? left > right : left < right);
    const bestByRow = new Map<number, Float64Array>();
    found.forEach((result, row) => {
      for (let position = 0; position < result.slots.length; position += 1) {
        const parent = this.parentOf[result.slots[position]!];
        if (parent === undefined || parent === noParent) continue;
        let scores = bestByRow.get(parent);
        if (!scores) bestByRow.set(parent, (scores = new Float64Array(found.length).fill(Number.NaN)));
        const score = result.scores[position]!;
        if (Number.isNaN(scores[row]!) || better(score, scores[row]!)) scores[row] = score;
      }
    });
    const floors = found.map((result) => (result.scores.length > 0 ? result.scores[result.scores.length - 1]! : 0));
    const estimates = [...bestByRow].map(([parent, scores]) => {
      let estimate = 0;
      scores.forEach((score, row) => (estimate += Number.isNaN(score) ? floors[row]! : score));
      return { parent, estimate };
    });
    estimates.sort((left, right) => (larger ? right.estimate - left.estimate : left.estimate - right.estimate) || left.parent - right.parent);
    const top: { slot: number; score: number }[] = [];
    let start = 0;
    let step = Math.max(k, 16);
    while (start < estimates.length) {
      const kth = top.length >= k ? top[k - 1]!.score : undefined;
      // Every later estimate is no better than this one: none of them can enter the top k.
      if (kth !== undefined && !better(estimates[start]!.estimate, kth)) break;
      const batch = estimates.slice(start, start + step);
      const scores = await this.maxSim(query, Uint32Array.from(batch, (candidate) => candidate.parent));
      batch.forEach((candidate, position) => {
        if (!Number.isNaN(scores[position])) top.push({ slot: candidate.parent, score: scores[position]! });
      });
      top.sort((left, right) => (larger ? right.score - left.score : left.score - right.score) || left.slot - right.slot);
      top.length = Math.min(top.length, k);
      start += batch.length;
      step *= 2;
      this.rescored += batch.length;
    }
    return { slots: Uint32Array.from(top, (hit) => hit.slot), scores: Float32Array.from(top, (hit) => hit.score) };
  }

  /** One search per query; every query here is one row (the contract's shape). */
  async searchBatch(queries: Float32Array, k: number, options?: SearchOptions): Promise<SearchResult[]> {
    const results: SearchResult[] = [];
    for (let start = 0; start < queries.length; start += this.dimension) results.push(await this.search(queries.subarray(start, start + this.dimension), k, options));
    return results;
  }

  mmrSelect(): Promise<Uint32Array> {
    return Promise.reject(new Error('mmr is not supported on a multivector'));
  }

  // ---- status and life cycle ------------------------------------------------------------------------

  /** Points (not rows); a point counts as indexed once all rows of the index are linked. */
  stats(): VectorIndexStats {
    const rows = this.rows.stats();
    const count = this.subSlotsOf.size;
    const indexed = rows.indexedCount >= rows.count ? count : Math.floor((count * rows.indexedCount) / Math.max(1, rows.count));
    return { count, indexedCount: indexed, deletedCount: 0, memoryBytes: rows.memoryBytes + this.parentOf.byteLength + count * 64, mappedBytes: rows.mappedBytes };
  }

  /** Live points (not rows), as stats().count, without asking the kernel. */
  liveCount(): number {
    return this.subSlotsOf.size;
  }

  /** Live rows (the kernel index's own live count, one atomic read): for per-search checks. */
  liveRowCount(): number {
    return this.rows.liveCount();
  }

  /** Row statistics of the kernel index under this one (bench and tests). */
  rowStats(): VectorIndexStats {
    return this.rows.stats();
  }

  memoryReport(): KernelMemoryReport {
    return this.rows.memoryReport();
  }

  /** Quantization applies to the rows: the graph walks codes, MaxSim rescoring uses the originals. */
  setQuantization(quantization: KernelQuantization | null): void {
    this.rows.setQuantization(quantization);
  }

  quantizationStatus(): QuantizationStatus {
    return this.rows.quantizationStatus();
  }

  waitQuantized(): Promise<void> {
    return this.rows.waitQuantized();
  }

  waitIndexed(): Promise<void> {
    return this.rows.waitIndexed();
  }

  /**
   * The checkpoint (docs/architecture.md §17): the rows through the kernel's own dense checkpoint
   * at `path`, then the sub-slot map beside it (multi-vector-checkpoint.ts), both tagged with
   * `lastOperationId` and `binding` so recovery refuses a pair from two different saves. The map
   * is copied before the first await: the checkpointer runs in the write queue, so no write can
   * change either part meanwhile.
   */
  async save(path: string, lastOperationId: number, binding = ''): Promise<void> {
    const map = this.snapshot(lastOperationId, binding);
    await this.rows.save(path, lastOperationId, binding);
    await replaceFileAtomically(multivectorMapPath(path), encodeMultivectorMap(map));
  }

  /** The sub-slot map as it is now; sub-slots freed under a running search count as free. */
  private snapshot(lastOperationId: number, binding: string): MultivectorMap {
    const points = new Map<number, Uint32Array>();
    for (const [slot, own] of this.subSlotsOf) points.set(slot, own.slice());
    return { lastOperationId, binding, parents: this.parentOf.slice(0, this.nextSubSlot), points, free: Uint32Array.from([...this.freedDuringSearch, ...this.free]) };
  }

  /**
   * Start-up: takes the map of a checkpoint whose rows `this.rows` was loaded from. Refuses
   * (throws) when the kernel holds another number of rows than the map places.
   */
  restoreMap(map: MultivectorMap): void {
    let rows = 0;
    for (const own of map.points.values()) rows += own.length;
    const live = this.rows.liveCount();
    if (live !== rows) throw new Error(`the rows checkpoint holds ${live} rows, the map places ${rows}`);
    this.parentOf = new Uint32Array(Math.max(1024, map.parents.length)).fill(noParent);
    this.parentOf.set(map.parents);
    this.nextSubSlot = map.parents.length;
    this.subSlotsOf.clear();
    for (const [slot, own] of map.points) this.subSlotsOf.set(slot, own);
    this.free.length = 0;
    for (const subSlot of map.free) this.free.push(subSlot);
  }

  close(): void {
    this.rows.close();
  }
}

export function isMultiVectorIndex(index: VectorIndex): index is MultiVectorIndex {
  return (index as Partial<MultiVectorIndex>).multivector === true;
}

/**
 * One kernel upsert of `rows[i]` for `slots[i]`: a dense index takes them back to back; a
 * multivector index takes each as its matrix.
 */
export function upsertRows(index: VectorIndex, slots: Uint32Array, rows: readonly Float32Array[]): Promise<void> {
  if (isMultiVectorIndex(index)) return index.upsertMatrices(slots, rows);
  return index.upsert(slots, joined(rows, (length) => new Float32Array(length)));
}

/** `parts` back to back in one new array made by `create`. */
function joined<Parts extends Float32Array | Uint32Array>(parts: readonly Parts[], create: (length: number) => Parts): Parts {
  let total = 0;
  for (const part of parts) total += part.length;
  const result = create(total);
  let offset = 0;
  for (const part of parts) {
    result.set(part, offset);
    offset += part.length;
  }
  return result;
}
