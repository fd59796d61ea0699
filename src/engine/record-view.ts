// How points are read back: records with the payload and vectors a request selects, and single
// stored vectors. Vectors come from the kernel, or from the write in flight when one is between
// its commit and its kernel update (in-flight-vectors.ts).
import { errors } from '../errors.js';
import type { VectorIndex } from '../native/vector-index.js';
import type { PointId } from '../points/ids.js';
import { selectPayload, type Payload, type PayloadSelection, type VectorSelection } from '../points/selectors.js';
import { Float32Row } from '../points/float32-row.js';
import type { StoredPayload } from '../points/stored-payload.js';
import { sparseVectorToJson } from '../points/vectors.js';
import { unnamedVector, type CollectionConfig } from './collection-config.js';
import type { InFlightVectors } from './in-flight-vectors.js';
import { isMultiVectorIndex } from './multi-vector-index.js';
import { answerPayloads, type PointEntry, type PointTable } from './point-table.js';
import type { SparseVectors } from './sparse-vectors.js';

/** A sparse vector as records show it (indices ascending). */
export interface SparseVectorJson {
  indices: number[];
  values: number[];
}

/** One named vector of a record: a dense row, a multivector's rows, or a sparse vector. */
export type RecordVector = Float32Row | Float32Row[] | SparseVectorJson;

/**
 * A record as reads return it (docs/api.md §3): keys not asked for are left out. Dense rows stay
 * float32 until they are written out (src/points/float32-row.ts): JSON gives them as numbers.
 */
export interface PointRecord {
  id: PointId;
  /** The whole payload as a StoredPayload (written as its stored text), a selection of it as a value. */
  payload?: Payload | StoredPayload;
  vector?: Float32Row | Float32Row[] | Record<string, RecordVector>;
}

/** A matrix of rows back to back as the API returns it: one row per vector. */
function matrixRows(matrix: Float32Array, dimension: number): Float32Row[] {
  const rows: Float32Row[] = [];
  for (let start = 0; start < matrix.length; start += dimension) rows.push(new Float32Row(matrix, start, dimension));
  return rows;
}

/** The index of `vectorName` among `indexes`, or 400 naming the unknown name and the known ones. */
export function vectorIndexNamed(indexes: ReadonlyMap<string, VectorIndex>, config: CollectionConfig, vectorName: string, field = 'vector'): VectorIndex {
  const index = indexes.get(vectorName);
  if (!index) {
    if (Object.hasOwn(config.sparse_vectors ?? {}, vectorName)) {
      throw errors.invalidField(field, `${JSON.stringify(vectorName)} is a sparse vector: this operation needs a dense vector`);
    }
    const known = Object.keys(config.vectors).map((name) => (name === '' ? '"" (unnamed)' : name));
    throw errors.invalidField(field, `Not existing vector name: ${JSON.stringify(vectorName)} (this collection has ${known.join(', ') || 'none'})`);
  }
  return index;
}

export interface RecordViewOptions {
  table: PointTable;
  indexes: ReadonlyMap<string, VectorIndex>;
  sparse: SparseVectors;
  inFlight: InFlightVectors;
  /** The current configuration (it changes with PATCH). */
  config: () => CollectionConfig;
}

export class RecordView {
  constructor(private readonly options: RecordViewOptions) {}

  private vectorIndex(vectorName: string, field: string): VectorIndex {
    return vectorIndexNamed(this.options.indexes, this.options.config(), vectorName, field);
  }

  /** Checks `with_vector` names against the collection (400 for an unknown one). */
  checkVectorSelection(selection: VectorSelection, field = 'with_vector'): void {
    if (selection.kind !== 'named') return;
    for (const name of selection.names) if (!this.options.sparse.isSparse(name)) this.vectorIndex(name, field);
  }

  /** Points by id, in request order; unknown ids left out. */
  retrieve(ids: readonly PointId[], payload: PayloadSelection, vector: VectorSelection): PointRecord[] {
    this.checkVectorSelection(vector);
    const entries: PointEntry[] = [];
    for (const id of ids) {
      const entry = this.options.table.byId(id);
      if (entry) entries.push(entry);
    }
    return this.toRecords(entries, payload, vector);
  }

  /** The stored (Cosine: normalised) vector of a point, or undefined when it has none. */
  storedVector(entry: PointEntry, vectorName: string): Float32Array | undefined {
    const index = this.options.indexes.get(vectorName);
    if (!index) return undefined;
    const inFlight = this.options.inFlight.stored(entry.slot, vectorName, index);
    if (inFlight !== undefined) return inFlight ?? undefined;
    if (!index.has(entry.slot)) return undefined;
    return index.vectors(Uint32Array.of(entry.slot));
  }

  /**
   * Whether a point holds the vector `vectorName` as reads see it (a write in flight counts as
   * applied); false for a name the collection does not have.
   */
  hasVector(entry: PointEntry, vectorName: string): boolean {
    const index = this.options.indexes.get(vectorName);
    if (!index) return false;
    return this.options.inFlight.holds(entry.slot, vectorName) ?? index.has(entry.slot);
  }

  /** Records for `entries`, in order, with the payload and vectors the selections ask for. */
  toRecords(entries: readonly PointEntry[], payload: PayloadSelection, vector: VectorSelection): PointRecord[] {
    // Without with_payload the payload is not even read (docs/architecture.md §16); the whole
    // payload is answered as its stored text, not decoded (src/points/stored-payload.ts).
    const whole = payload.kind === 'all' ? answerPayloads(entries) : undefined;
    const records: PointRecord[] = entries.map((entry, position) => {
      const record: PointRecord = { id: entry.id };
      const selected = whole ? whole[position] : payload.kind === 'none' ? undefined : selectPayload(entry.payload, payload);
      if (selected !== undefined) record.payload = selected;
      return record;
    });
    if (vector.kind === 'none' || entries.length === 0) return records;
    const { sparse } = this.options;
    const names = vector.kind === 'all' ? [...this.options.indexes.keys(), ...sparse.names()] : vector.names;
    const slots = Uint32Array.from(entries, (entry) => entry.slot);
    const single = this.options.config().vectors_shape === 'single';
    const named: Record<string, RecordVector>[] = entries.map(() => ({}));
    // A point holding a sparse vector besides the unnamed dense one is shown named, as Qdrant does.
    const withSparse = new Set<number>();
    for (const name of names) {
      if (!sparse.isSparse(name)) continue;
      entries.forEach((entry, position) => {
        const stored = sparse.stored(entry.slot, name);
        if (stored === undefined) return;
        named[position]![name] = sparseVectorToJson(stored);
        withSparse.add(position);
      });
    }
    for (const name of names) {
      if (sparse.isSparse(name)) continue;
      const index = this.vectorIndex(name, 'with_vector');
      if (isMultiVectorIndex(index)) {
        // A multivector is shown as its rows, an array of arrays (docs/api.md §20).
        entries.forEach((entry, position) => {
          const inFlight = this.options.inFlight.stored(entry.slot, name, index);
          const matrix = inFlight === undefined ? index.matrix(entry.slot) : (inFlight ?? undefined);
          if (matrix !== undefined) named[position]![name] = matrixRows(matrix, index.dimension);
        });
        continue;
      }
      const rows = index.vectors(slots);
      const dimension = index.dimension;
      entries.forEach((entry, position) => {
        const inFlight = this.options.inFlight.stored(entry.slot, name, index);
        if (inFlight !== undefined) {
          if (inFlight !== null) named[position]![name] = new Float32Row(inFlight, 0, dimension);
          return;
        }
        // A NaN first element marks a slot without this vector (vector-index.ts).
        if (Number.isNaN(rows[position * dimension])) return;
        named[position]![name] = new Float32Row(rows, position * dimension, dimension);
      });
    }
    records.forEach((record, position) => {
      if (withSparse.has(position)) {
        record.vector = named[position]!;
      } else if (single && vector.kind === 'all') {
        const only = named[position]![unnamedVector] as Float32Row | undefined;
        if (only !== undefined) record.vector = only;
      } else if (single && vector.kind === 'named' && names.length === 1 && names[0] === unnamedVector) {
        const only = named[position]![unnamedVector] as Float32Row | undefined;
        if (only !== undefined) record.vector = only;
      } else {
        record.vector = named[position]!;
      }
    });
    return records;
  }
}
