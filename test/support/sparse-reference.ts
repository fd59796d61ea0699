// The slow exact scorer the sparse tests compare the server with: dot product over shared
// indices (after Qdrant's IDF weights when asked), best first, ties by ascending id. Written
// independently of src/search/sparse-search.ts on purpose.
export interface PlainSparse {
  indices: number[];
  values: number[];
}

export interface ReferencePoint {
  id: number;
  sparse?: PlainSparse;
  payload?: Record<string, unknown>;
}

export function dot(query: PlainSparse, vector: PlainSparse): number {
  const byIndex = new Map<number, number>();
  vector.indices.forEach((index, position) => byIndex.set(index, Math.fround(vector.values[position]!)));
  let score = 0;
  query.indices.forEach((index, position) => {
    const value = byIndex.get(index);
    if (value !== undefined) score += Math.fround(query.values[position]!) * value;
  });
  return score;
}

/** ln(((N - n + 0.5) / (n + 0.5)) + 1) over the points holding a vector. */
export function idfWeighted(query: PlainSparse, points: readonly ReferencePoint[]): PlainSparse {
  const holders = points.filter((point) => point.sparse !== undefined);
  const count = holders.length;
  return {
    indices: query.indices,
    values: query.indices.map((index, position) => {
      const frequency = holders.filter((point) => point.sparse!.indices.includes(index)).length;
      return query.values[position]! * Math.log((count - frequency + 0.5) / (frequency + 0.5) + 1);
    }),
  };
}

/**
 * The expected ranking: points holding the vector that share at least one index with the query
 * (the sparse index only meets those), best first, ties by id, then offset and limit.
 */
export function referenceSearch(
  points: readonly ReferencePoint[],
  query: PlainSparse,
  options: { limit: number; offset?: number; threshold?: number; accept?: (point: ReferencePoint) => boolean },
): { id: number; score: number }[] {
  const queryIndices = new Set(query.indices);
  const scored = points
    .filter((point) => point.sparse !== undefined && point.sparse.indices.some((index) => queryIndices.has(index)))
    .filter((point) => options.accept?.(point) ?? true)
    .map((point) => ({ id: point.id, score: dot(query, point.sparse!) }))
    .filter((point) => options.threshold === undefined || point.score > options.threshold)
    .sort((left, right) => right.score - left.score || left.id - right.id);
  const offset = options.offset ?? 0;
  return scored.slice(offset, offset + options.limit);
}

/** A random sparse vector over a small vocabulary, so vectors overlap. */
export function randomSparse(random: () => number, vocabulary: number, entries: number): PlainSparse {
  const indices = new Set<number>();
  while (indices.size < entries) indices.add(Math.floor(random() * vocabulary));
  const list = [...indices];
  return { indices: list, values: list.map(() => Math.round(random() * 1000) / 100) };
}
