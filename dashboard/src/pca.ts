// Principal component analysis for the 2-D map, computed in the browser: centre the sample, then
// find the leading directions by power iteration on X^T X (never forming the d x d covariance,
// so 2,000 vectors of 1,536 dimensions stay cheap), re-orthogonalising against the directions
// already found. test/dashboard/pca.test.ts checks it against an exact eigen decomposition.

export interface Projection {
  /** Each input row's coordinates along the components, in input order. */
  coordinates: number[][];
  /** Unit vectors, strongest first. */
  components: number[][];
  /** The sample variance along each component (its covariance eigenvalue). */
  variances: number[];
}

function dot(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += a[i]! * b[i]!;
  return sum;
}

function normalise(vector: number[]): number {
  const norm = Math.sqrt(dot(vector, vector));
  if (norm > 0) for (let i = 0; i < vector.length; i += 1) vector[i] = vector[i]! / norm;
  return norm;
}

/** Removes from `vector` its parts along the (unit, orthogonal) `basis` vectors. */
function orthogonalise(vector: number[], basis: readonly number[][]): void {
  for (const direction of basis) {
    const along = dot(vector, direction);
    for (let i = 0; i < vector.length; i += 1) vector[i] = vector[i]! - along * direction[i]!;
  }
}

/** A fixed start that is not orthogonal to typical data (a deterministic map for the same sample). */
function startVector(dimensions: number, seed: number): number[] {
  let state = (seed * 2654435761 + 1) >>> 0;
  return Array.from({ length: dimensions }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  });
}

export function principalComponents(rows: readonly (readonly number[])[], count = 2, maxIterations = 200, tolerance = 1e-9): Projection {
  const n = rows.length;
  const dimensions = rows[0]?.length ?? 0;
  if (n === 0 || dimensions === 0) return { coordinates: rows.map(() => new Array<number>(count).fill(0)), components: [], variances: [] };
  const mean = new Array<number>(dimensions).fill(0);
  for (const row of rows) for (let j = 0; j < dimensions; j += 1) mean[j] = mean[j]! + row[j]! / n;
  const centred = rows.map((row) => row.map((value, j) => value - mean[j]!));

  const components: number[][] = [];
  const variances: number[] = [];
  for (let k = 0; k < Math.min(count, dimensions); k += 1) {
    let direction = startVector(dimensions, k + 1);
    orthogonalise(direction, components);
    normalise(direction);
    let eigenvalue = 0;
    for (let iteration = 0; iteration < maxIterations; iteration += 1) {
      // next = X^T (X direction)
      const next = new Array<number>(dimensions).fill(0);
      for (const row of centred) {
        const projection = dot(row, direction);
        for (let j = 0; j < dimensions; j += 1) next[j] = next[j]! + projection * row[j]!;
      }
      orthogonalise(next, components);
      const norm = normalise(next);
      const settled = Math.abs(norm - eigenvalue) <= tolerance * Math.max(1, norm);
      eigenvalue = norm;
      direction = next;
      if (norm === 0 || settled) break;
    }
    // A fixed sign (largest entry positive) so the same sample always draws the same map.
    let largest = 0;
    for (let j = 1; j < dimensions; j += 1) if (Math.abs(direction[j]!) > Math.abs(direction[largest]!)) largest = j;
    if (direction[largest]! < 0) direction = direction.map((value) => -value);
    components.push(direction);
    variances.push(n > 1 ? eigenvalue / (n - 1) : 0);
  }
  const coordinates = centred.map((row) => {
    const point = components.map((component) => dot(row, component));
    while (point.length < count) point.push(0);
    return point;
  });
  return { coordinates, components, variances };
}
