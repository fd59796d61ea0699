// The map's PCA (dashboard/src/pca.ts, power iteration without the covariance matrix) against a
// slow reference: the full covariance matrix and its Jacobi eigen decomposition.
import { describe, expect, it } from 'vitest';
import { principalComponents } from '../../dashboard/src/pca.js';
import { mulberry32 } from '../support/seeded-random.js';

/** Eigenvalues and unit eigenvectors of a symmetric matrix by cyclic Jacobi rotations, largest first. */
function jacobiEigen(matrix: number[][]): Array<{ value: number; vector: number[] }> {
  const n = matrix.length;
  const a = matrix.map((row) => [...row]);
  const v: number[][] = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));
  for (let sweep = 0; sweep < 100; sweep += 1) {
    let off = 0;
    for (let p = 0; p < n; p += 1) for (let q = p + 1; q < n; q += 1) off += a[p]![q]! ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n; p += 1) {
      for (let q = p + 1; q < n; q += 1) {
        if (Math.abs(a[p]![q]!) < 1e-300) continue;
        const theta = (a[q]![q]! - a[p]![p]!) / (2 * a[p]![q]!);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k += 1) {
          const akp = a[k]![p]!;
          const akq = a[k]![q]!;
          a[k]![p] = c * akp - s * akq;
          a[k]![q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k += 1) {
          const apk = a[p]![k]!;
          const aqk = a[q]![k]!;
          a[p]![k] = c * apk - s * aqk;
          a[q]![k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k += 1) {
          const vkp = v[k]![p]!;
          const vkq = v[k]![q]!;
          v[k]![p] = c * vkp - s * vkq;
          v[k]![q] = s * vkp + c * vkq;
        }
      }
    }
  }
  return Array.from({ length: n }, (_, i) => ({ value: a[i]![i]!, vector: v.map((row) => row[i]!) })).sort((x, y) => y.value - x.value);
}

function covariance(rows: number[][]): number[][] {
  const n = rows.length;
  const d = rows[0]!.length;
  const mean = Array.from({ length: d }, (_, j) => rows.reduce((sum, row) => sum + row[j]!, 0) / n);
  return Array.from({ length: d }, (_, i) => Array.from({ length: d }, (_, j) => rows.reduce((sum, row) => sum + (row[i]! - mean[i]!) * (row[j]! - mean[j]!), 0) / (n - 1)));
}

/** Rows with distinct variances along random orthogonal-ish directions, so the top two are well separated. */
function makeRows(seed: number, n: number, d: number): number[][] {
  const random = mulberry32(seed);
  const scales = Array.from({ length: d }, (_, j) => 5 / (j + 1));
  return Array.from({ length: n }, () => scales.map((scale) => (random() - 0.5) * scale + 3));
}

const dot = (a: number[], b: number[]): number => a.reduce((sum, value, index) => sum + value * b[index]!, 0);

describe('dashboard map PCA', () => {
  it('pca — the two variances and directions match the covariance eigen decomposition', () => {
    for (const seed of [1, 2, 3]) {
      const rows = makeRows(seed, 300, 12);
      const reference = jacobiEigen(covariance(rows));
      const projection = principalComponents(rows);
      for (let k = 0; k < 2; k += 1) {
        expect(projection.variances[k]).toBeCloseTo(reference[k]!.value, 6);
        // Directions agree up to sign.
        expect(Math.abs(dot(projection.components[k]!, reference[k]!.vector))).toBeCloseTo(1, 6);
      }
    }
  });

  it('pca — the components are unit length and orthogonal, and coordinates are the centred rows along them', () => {
    const rows = makeRows(9, 120, 6);
    const { components, coordinates } = principalComponents(rows);
    expect(dot(components[0]!, components[0]!)).toBeCloseTo(1, 9);
    expect(dot(components[1]!, components[1]!)).toBeCloseTo(1, 9);
    expect(dot(components[0]!, components[1]!)).toBeCloseTo(0, 9);
    const mean = rows[0]!.map((_, j) => rows.reduce((sum, row) => sum + row[j]!, 0) / rows.length);
    const centred = rows[17]!.map((value, j) => value - mean[j]!);
    expect(coordinates[17]![0]).toBeCloseTo(dot(centred, components[0]!), 9);
    expect(coordinates[17]![1]).toBeCloseTo(dot(centred, components[1]!), 9);
  });

  it('pca — the same sample always gives the same map (fixed start and sign)', () => {
    const rows = makeRows(4, 80, 10);
    expect(principalComponents(rows)).toEqual(principalComponents(rows.map((row) => [...row])));
  });

  it('pca — degenerate samples give zeros, never NaN', () => {
    expect(principalComponents([]).coordinates).toEqual([]);
    const same = principalComponents([
      [1, 2, 3],
      [1, 2, 3],
    ]);
    expect(same.coordinates.flat().every((value) => value === 0)).toBe(true);
    const line = principalComponents([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
    expect(line.variances[0]).toBeCloseTo(2, 9);
    expect(line.coordinates.flat().every(Number.isFinite)).toBe(true);
  });
});
