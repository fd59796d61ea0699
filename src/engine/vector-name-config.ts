// Adding and removing a named vector on an existing collection (docs/api.md §4.7): the request
// body (Qdrant's VectorNameConfig: `{"dense": {...}}` or `{"sparse": {...}}`) and the stored
// configuration after the change. Throws ConfigProblem for what the schema cannot check.
import { Type, type Static } from '@sinclair/typebox';
import { ConfigProblem, checkDenseDatatype, unnamedVector, type CollectionConfig, type ConfigLimits } from './collection-config.js';
import { DenseDatatypeSchema, DistanceSchema, SparseDatatypeSchema } from './collection-request-schemas.js';

const strict = { additionalProperties: false } as const;

export const VectorNameConfigSchema = Type.Union([
  Type.Object(
    {
      dense: Type.Object(
        {
          size: Type.Integer({ minimum: 1 }),
          distance: DistanceSchema,
          multivector_config: Type.Optional(Type.Union([Type.Object({ comparator: Type.Literal('max_sim') }, strict), Type.Null()])),
          datatype: Type.Optional(Type.Union([DenseDatatypeSchema, Type.Null()])),
        },
        strict,
      ),
    },
    strict,
  ),
  Type.Object(
    {
      sparse: Type.Object(
        { modifier: Type.Optional(Type.Union([Type.Literal('none'), Type.Literal('idf'), Type.Null()])), datatype: Type.Optional(Type.Union([SparseDatatypeSchema, Type.Null()])) },
        strict,
      ),
    },
    strict,
  ),
]);
export type VectorNameConfig = Static<typeof VectorNameConfigSchema>;

function checkNewName(config: CollectionConfig, name: string): void {
  if (name === unnamedVector) throw new ConfigProblem('vector_name', 'a vector name must not be empty');
  if (name in config.vectors || name in (config.sparse_vectors ?? {})) throw new ConfigProblem('vector_name', `vector ${name} already exists`);
}

/** The configuration with vector `name` added; `kind` says which map it went to. */
export function withVectorName(current: CollectionConfig, name: string, request: VectorNameConfig, limits: ConfigLimits): { config: CollectionConfig; kind: 'dense' | 'sparse' } {
  checkNewName(current, name);
  const next: CollectionConfig = structuredClone(current);
  if ('sparse' in request) {
    const params: Record<string, unknown> = {};
    if (request.sparse.modifier != null) params.modifier = request.sparse.modifier;
    if (request.sparse.datatype != null) params.index = { datatype: request.sparse.datatype };
    next.sparse_vectors = { ...next.sparse_vectors, [name]: params };
    return { config: next, kind: 'sparse' };
  }
  const dense = request.dense;
  // A single unnamed vector is addressed without a name everywhere; a second, named one would change that shape.
  if (current.vectors_shape === 'single') throw new ConfigProblem('vector_name', 'the collection has one unnamed vector: named vectors can be added only to a collection created with named vectors');
  if (dense.size > limits.max_vector_size) throw new ConfigProblem('dense.size', `vector size ${dense.size} is above the limit of ${limits.max_vector_size}`);
  checkDenseDatatype(dense.datatype, 'dense.datatype');
  if (dense.multivector_config != null && dense.datatype != null && dense.datatype !== 'float32') {
    throw new ConfigProblem('dense.datatype', `a multivector stores float32 rows; datatype ${dense.datatype} is not supported for multivectors`);
  }
  // A multivector (docs/api.md §20) is a dense vector whose points hold a matrix of rows.
  next.vectors[name] = {
    size: dense.size,
    distance: dense.distance,
    ...(dense.datatype != null ? { datatype: dense.datatype } : {}),
    ...(dense.multivector_config != null ? { multivector_config: { comparator: dense.multivector_config.comparator } } : {}),
  };
  return { config: next, kind: 'dense' };
}

/** The configuration with vector `name` removed. */
export function withoutVectorName(current: CollectionConfig, name: string): { config: CollectionConfig; kind: 'dense' | 'sparse' } {
  const next: CollectionConfig = structuredClone(current);
  if (name in current.vectors) {
    if (current.vectors_shape === 'single') throw new ConfigProblem('vector_name', 'the unnamed vector of a collection cannot be removed');
    delete next.vectors[name];
    return { config: next, kind: 'dense' };
  }
  if (next.sparse_vectors && name in next.sparse_vectors) {
    delete next.sparse_vectors[name];
    return { config: next, kind: 'sparse' };
  }
  throw new ConfigProblem('vector_name', `Not existing vector name error: ${name}`);
}
