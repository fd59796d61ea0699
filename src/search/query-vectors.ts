// The vectors a query form names, resolved: inline vectors checked against the dimension of
// `using`, point ids read from this collection or the `lookup_from` one. From them come the
// nearest-search vector (nearest, recommend average_vector) or the score function of an
// example-based form (recommend best_score / sum_scores, discover, context, relevance_feedback).
import type { Collection } from '../engine/collection.js';
import { errors } from '../errors.js';
import type { Distance } from '../native/vector-index.js';
import { formatPointId, parsePointId } from '../points/ids.js';
import type { SparseVector } from '../points/sparse-vector.js';
import { parseDenseVector, parseMultiVector } from '../points/vectors.js';
import { isMultiVectorIndex } from '../engine/multi-vector-index.js';
import { averageVector } from './example-scores.js';
import { exampleScorer, type CandidateScorer, type ExampleForm } from './example-scorer.js';
import { fieldPath } from './field-path.js';
import { maxSimSimilarity } from './multivector-examples.js';
import type { ContextPairSource, QueryForm, QueryStage, VectorSource } from './plan.js';
import type { QueryEnvironment } from './query-environment.js';
import type { PointIdInput } from './schemas.js';

export class QueryVectors {
  constructor(
    private readonly collection: Collection,
    private readonly environment: QueryEnvironment,
  ) {}

  /** The query vector a source names, checked against the dimension of `using`. */
  resolve(source: VectorSource, stage: QueryStage, field: string): Float32Array {
    const index = this.collection.vectorIndex(stage.using, fieldPath(stage.field, 'using'));
    const dimension = index.dimension;
    if (source.kind === 'sparse') {
      throw errors.invalidField(field, `${JSON.stringify(stage.using)} is a dense vector: a sparse query (indices and values, or a Document) needs a sparse vector name in "using"`);
    }
    const maxRows = this.collection.vectorLayout.multivectors?.get(stage.using);
    if (source.kind === 'multi') {
      if (maxRows === undefined) throw errors.invalidField(field, `${JSON.stringify(stage.using)} is not a multivector: give one array of ${dimension} numbers`);
      // A multivector query (docs/api.md §20): 1..max rows, each checked like a dense query.
      return parseMultiVector(source.rows, field, dimension, maxRows, index.distance);
    }
    if (source.kind === 'vector') {
      // Dimension, finiteness and the float32 range (1e39 would become Infinity): a 400, not a kernel error.
      // Cosine: a non-zero norm, normalised here when float32 cannot sum its squares (vector-norm.ts).
      return parseDenseVector(source.values, field, dimension, index.distance);
    }
    const { id, collection, vectorName, entry, nameField } = this.examplePoint(source.id, stage);
    // The vector name must exist there: a 400 naming where it was given, before reading it.
    const exampleIndex = collection.vectorIndex(vectorName, nameField);
    const vector = collection.storedVector(entry, vectorName);
    if (!vector) throw errors.invalidField(field, `point ${formatPointId(id)} has no vector ${JSON.stringify(vectorName)}`);
    // A stored multivector is a whole matrix; it may serve as the query of a multivector only.
    const exampleIsMatrix = isMultiVectorIndex(exampleIndex);
    if (exampleIsMatrix !== (maxRows !== undefined)) {
      throw errors.invalidField(field, `point ${formatPointId(id)}: ${JSON.stringify(vectorName)} and ${JSON.stringify(stage.using)} must both be multivectors or both not`);
    }
    if (exampleIsMatrix ? vector.length % dimension !== 0 || exampleIndex.dimension !== dimension : vector.length !== dimension) throw errors.dimensionMismatch(field, dimension, vector.length);
    return vector;
  }

  /** The sparse query vector a source names under the sparse vector `using` (docs/api.md §5.6). */
  resolveSparse(source: VectorSource, stage: QueryStage, field: string): SparseVector {
    if (source.kind === 'sparse') return source.vector;
    if (source.kind === 'vector' || source.kind === 'multi') {
      throw errors.invalidField(field, `${JSON.stringify(stage.using)} is a sparse vector: give {"indices": [...], "values": [...]}, not a dense vector`);
    }
    const { id, collection, vectorName, entry, nameField } = this.examplePoint(source.id, stage);
    if (!collection.sparse.isSparse(vectorName)) {
      throw errors.invalidField(nameField, `${JSON.stringify(vectorName)} is not a sparse vector of collection ${collection.name}`);
    }
    const vector = collection.storedSparseVector(entry, vectorName);
    if (!vector) throw errors.invalidField(field, `point ${formatPointId(id)} has no vector ${JSON.stringify(vectorName)}`);
    return vector;
  }

  /**
   * The point an example id names: in the stage's collection, or in `lookup_from`'s, whose vector
   * name then replaces `using` (`nameField` is where that name was given, for 400s).
   */
  private examplePoint(rawId: PointIdInput, stage: QueryStage) {
    const id = parsePointId(rawId);
    const lookup = stage.lookupFrom;
    const collection = lookup ? this.environment.collectionNamed(lookup.collection) : this.collection;
    const vectorName = lookup ? lookup.vector : stage.using;
    const nameField = lookup ? fieldPath(stage.field, 'lookup_from.vector') : fieldPath(stage.field, 'using');
    const entry = collection.pointById(id);
    if (!entry) throw errors.pointNotFound(formatPointId(id));
    return { id, collection, vectorName, entry, nameField };
  }

  private resolveAll(sources: VectorSource[], stage: QueryStage, field: string): Float32Array[] {
    return sources.map((source, position) => this.resolve(source, stage, `${field}[${position}]`));
  }

  private resolvePairs(pairs: ContextPairSource[], stage: QueryStage, field: string) {
    return pairs.map((pair, position) => ({
      positive: this.resolve(pair.positive, stage, `${field}[${position}].positive`),
      negative: this.resolve(pair.negative, stage, `${field}[${position}].negative`),
    }));
  }

  /** The nearest-search vector of a nearest or average_vector form; undefined for the others. */
  nearestVector(form: QueryForm, stage: QueryStage): Float32Array | undefined {
    const field = stage.queryField ?? fieldPath(stage.field, 'query');
    if (form.kind === 'nearest') return this.resolve(form.target, stage, field);
    if (form.kind === 'recommend' && form.strategy === 'average_vector') {
      const positives = this.resolveAll(form.positive, stage, `${field}.recommend.positive`);
      const negatives = this.resolveAll(form.negative, stage, `${field}.recommend.negative`);
      const index = this.collection.vectorIndex(stage.using, fieldPath(stage.field, 'using'));
      if (isMultiVectorIndex(index)) {
        // As Qdrant: one positive alone is the query as it is; otherwise every row of the
        // examples is averaged as dense vectors are, into a one-row query (docs/api.md §20).
        if (positives.length === 1 && negatives.length === 0) return positives[0];
        const rows = (matrices: Float32Array[]) => matrices.flatMap((matrix) => Array.from({ length: matrix.length / index.dimension }, (_, row) => matrix.subarray(row * index.dimension, (row + 1) * index.dimension)));
        return averageVector(rows(positives), rows(negatives), index.dimension);
      }
      return averageVector(positives, negatives, positives[0]!.length);
    }
    return undefined;
  }

  /** The score function of an example-based form (best_score, sum_scores, discover, context, relevance_feedback). */
  exampleScorer(form: QueryForm, stage: QueryStage, distance: Distance, dimension: number): CandidateScorer | undefined {
    const field = stage.queryField ?? fieldPath(stage.field, 'query');
    let example: ExampleForm | undefined;
    if (form.kind === 'recommend' && form.strategy !== 'average_vector') {
      example = {
        kind: form.strategy,
        positives: this.resolveAll(form.positive, stage, `${field}.recommend.positive`),
        negatives: this.resolveAll(form.negative, stage, `${field}.recommend.negative`),
      };
    } else if (form.kind === 'discover') {
      example = {
        kind: 'discover',
        target: this.resolve(form.target, stage, `${field}.discover.target`),
        pairs: this.resolvePairs(form.pairs, stage, `${field}.discover.context`),
      };
    } else if (form.kind === 'context') {
      example = { kind: 'context', pairs: this.resolvePairs(form.pairs, stage, `${field}.context`) };
    } else if (form.kind === 'relevance_feedback') {
      example = {
        kind: 'relevance_feedback',
        target: this.resolve(form.target, stage, `${field}.relevance_feedback.target`),
        examples: form.feedback.map((item, position) => this.resolve(item.example, stage, `${field}.relevance_feedback.feedback[${position}].example`)),
        pairs: form.pairs,
        a: form.strategy.a,
      };
    }
    if (!example) return undefined;
    // A multivector's examples are matrices, compared by MaxSim (./multivector-examples.ts).
    const index = this.collection.vectorIndex(stage.using, fieldPath(stage.field, 'using'));
    return exampleScorer(distance, dimension, example, isMultiVectorIndex(index) ? maxSimSimilarity(distance, dimension) : undefined);
  }
}
