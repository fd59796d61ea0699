// The body of `POST C/points/search/matrix/pairs` and `.../matrix/offsets` (docs/api.md §3) as
// TypeBox checks it, and its normalised form. Optionals accept null, as Qdrant clients send it;
// unknown keys are refused. Qdrant's own bounds hold: a sample of at least 2, a limit of at
// least 1; both are also capped like a search `limit`, since the work grows with them.
import { Type, type Static } from '@sinclair/typebox';
import { errors } from '../errors.js';

export const SearchMatrixBodySchema = Type.Object(
  {
    sample: Type.Optional(Type.Union([Type.Integer({ minimum: 2 }), Type.Null()])),
    limit: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    filter: Type.Optional(Type.Unknown()),
    using: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    // One shard: accepted and ignored, as by every other read.
    shard_key: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export type SearchMatrixBody = Static<typeof SearchMatrixBodySchema>;

/** Qdrant's defaults: 10 sampled points, 3 neighbours each. */
export const defaultMatrixSample = 10;
export const defaultMatrixLimit = 3;

export interface SearchMatrixRequest {
  sample: number;
  limit: number;
  /** The filter as sent; the filter module parses it. */
  filter: unknown;
  /** Vector name; '' = the unnamed vector. */
  using: string;
}

export function searchMatrixRequest(body: SearchMatrixBody, maxLimit: number): SearchMatrixRequest {
  const sample = body.sample ?? defaultMatrixSample;
  const limit = body.limit ?? defaultMatrixLimit;
  if (sample > maxLimit) throw errors.invalidBodyField('sample', `must be at most ${maxLimit} (got ${sample})`);
  if (limit > maxLimit) throw errors.invalidBodyField('limit', `must be at most ${maxLimit} (got ${limit})`);
  return { sample, limit, filter: body.filter ?? undefined, using: body.using ?? '' };
}
