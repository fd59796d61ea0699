// The `POST C/facet` body (docs/api.md §3) as TypeBox checks it, and its normalised form. Qdrant
// clients send `null` for optional fields they leave unset, so optionals accept null; unknown
// keys are refused, so a misspelt option is never silently ignored.
import { Type, type Static } from '@sinclair/typebox';
import { errors } from '../errors.js';

export const FacetBodySchema = Type.Object(
  {
    key: Type.String(),
    limit: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    filter: Type.Optional(Type.Unknown()),
    exact: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    // One shard: accepted and ignored, as by every other read.
    shard_key: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export type FacetBody = Static<typeof FacetBodySchema>;

/** Qdrant's default number of hits. */
export const defaultFacetLimit = 10;

export interface FacetRequest {
  key: string;
  limit: number;
  /** The filter as sent; the filter module parses it. */
  filter: unknown;
  exact: boolean;
}

/** The checked request; `limit` above the search cap is a 400, as a search `limit` is. */
export function facetRequest(body: FacetBody, maxLimit: number): FacetRequest {
  const limit = body.limit ?? defaultFacetLimit;
  if (limit > maxLimit) throw errors.invalidBodyField('limit', `must be at most ${maxLimit} (got ${limit})`);
  return { key: body.key, limit, filter: body.filter ?? undefined, exact: body.exact ?? false };
}
