//! Maximal marginal relevance (docs/api.md §5): reorders candidates so that each next pick is
//! relevant to the query yet unlike the points already picked.
//!
//! Similarities are the internal "larger is better" form of the metric, the negated kernel
//! distance (Cosine/Dot: the dot of the stored vectors; Euclid: minus the squared L2 distance;
//! Manhattan: minus the L1 distance), the same values every search compares.
//!
//! Picking rule, with lambda = 1 - diversity: the first pick is the most relevant candidate;
//! every later one maximises `lambda * relevance - (1 - lambda) * max similarity to the picks`.
//! Ties go to the candidate met last while walking the remaining list, a list from which each
//! pick is removed by moving its last element into the hole: the order Qdrant's selection walks,
//! so tied candidates come out in the order a Qdrant server returns them.
//!
//! `select` keeps, per remaining candidate, its running maximum similarity to the picks, so each
//! round costs one distance per remaining candidate; `select_naive` is its slow twin, computing
//! the whole matrix first and taking each maximum afresh, as the definition reads.

use crate::distance::Space;

/// Most candidates one selection may be given: the pairwise work grows with their square.
pub const MAX_CANDIDATES: usize = 16_384;

/// The position (into `remaining`) of the last largest score, ignoring NaN.
fn last_best(remaining: &[usize], mut score_of: impl FnMut(usize) -> f32) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (position, candidate) in remaining.iter().enumerate() {
        let score = score_of(*candidate);
        if score.is_nan() {
            continue;
        }
        if best.is_none_or(|(_, top)| score >= top) {
            best = Some((position, score));
        }
    }
    best.map(|(position, _)| position)
}

/// Relevance of every row to the prepared `query`, larger better.
fn relevances(space: &Space, query: &[f32], rows: &[&[f32]]) -> Vec<f32> {
    rows.iter().map(|row| -space.distance(query, row)).collect()
}

fn similarity(space: &Space, left: &[f32], right: &[f32]) -> f32 {
    -space.distance(left, right)
}

/// The first pick and the list it leaves: shared by both versions so that they start alike.
fn first_pick(relevance: &[f32], limit: usize) -> Option<(Vec<usize>, Vec<usize>)> {
    if relevance.is_empty() || limit == 0 {
        return None;
    }
    let mut remaining: Vec<usize> = (0..relevance.len()).collect();
    let position = last_best(&remaining, |candidate| relevance[candidate])?;
    let picked = vec![remaining.swap_remove(position)];
    Some((picked, remaining))
}

/// Positions into `rows` in pick order, at most `limit` of them. `query` must already be prepared
/// for the space (unit length for Cosine), as stored rows are.
pub fn select(space: &Space, query: &[f32], rows: &[&[f32]], lambda: f32, limit: usize) -> Vec<usize> {
    let relevance = relevances(space, query, rows);
    let Some((mut picked, mut remaining)) = first_pick(&relevance, limit) else { return Vec::new() };
    let mut closest = vec![f32::NEG_INFINITY; rows.len()];
    while picked.len() < limit && !remaining.is_empty() {
        let last = rows[*picked.last().expect("one pick at least")];
        for candidate in &remaining {
            let value = similarity(space, rows[*candidate], last);
            if value > closest[*candidate] {
                closest[*candidate] = value;
            }
        }
        let Some(position) = last_best(&remaining, |candidate| lambda * relevance[candidate] - (1.0 - lambda) * closest[candidate]) else {
            break;
        };
        picked.push(remaining.swap_remove(position));
    }
    picked
}

/// The slow twin of `select`: the full similarity matrix, and every maximum recomputed.
pub fn select_naive(space: &Space, query: &[f32], rows: &[&[f32]], lambda: f32, limit: usize) -> Vec<usize> {
    let relevance = relevances(space, query, rows);
    let matrix: Vec<Vec<f32>> = rows.iter().map(|left| rows.iter().map(|right| similarity(space, left, right)).collect()).collect();
    let Some((mut picked, mut remaining)) = first_pick(&relevance, limit) else { return Vec::new() };
    while picked.len() < limit && !remaining.is_empty() {
        let score = |candidate: usize| {
            let closest = picked.iter().map(|chosen| matrix[candidate][*chosen]).fold(f32::NEG_INFINITY, f32::max);
            lambda * relevance[candidate] - (1.0 - lambda) * closest
        };
        let Some(position) = last_best(&remaining, score) else { break };
        picked.push(remaining.swap_remove(position));
    }
    picked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::Metric;
    use crate::test_support::Random;

    fn rows_of(data: &[f32], dimension: usize) -> Vec<&[f32]> {
        data.chunks_exact(dimension).collect()
    }

    #[test]
    fn mmr_the_fast_selection_matches_the_full_matrix_for_every_metric_and_awkward_length() {
        let mut random = Random::new(11);
        for metric in [Metric::Cosine, Metric::Dot, Metric::Euclid, Metric::Manhattan] {
            let space = Space::new(metric);
            for dimension in [1usize, 3, 7, 15, 16, 17, 31, 100] {
                for count in [1usize, 2, 5, 40] {
                    let mut data: Vec<f32> = (0..count * dimension).map(|_| random.gaussian()).collect();
                    for row in data.chunks_exact_mut(dimension) {
                        space.prepare(row);
                    }
                    let mut query: Vec<f32> = (0..dimension).map(|_| random.gaussian()).collect();
                    space.prepare(&mut query);
                    let rows = rows_of(&data, dimension);
                    for lambda in [0.0f32, 0.3, 0.5, 1.0] {
                        for limit in [0usize, 1, 3, count, count + 5] {
                            assert_eq!(
                                select(&space, &query, &rows, lambda, limit),
                                select_naive(&space, &query, &rows, lambda, limit),
                                "{metric:?} dimension {dimension} count {count} lambda {lambda} limit {limit}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn mmr_the_first_pick_is_the_most_relevant_candidate() {
        let space = Space::new(Metric::Dot);
        let data = [0.1f32, 0.0, 0.9, 0.0, 0.5, 0.5];
        let picked = select(&space, &[1.0, 0.0], &rows_of(&data, 2), 0.0, 1);
        assert_eq!(picked, vec![1]);
    }

    #[test]
    fn mmr_full_diversity_picks_the_candidate_least_like_the_first() {
        // Query along x; a near-duplicate of the best and an orthogonal point. With lambda 0 the
        // second pick is the one least similar to the first, however relevant the duplicate is.
        let space = Space::new(Metric::Cosine);
        let mut data = vec![1.0f32, 0.0, 0.99, 0.1, 0.0, 1.0];
        for row in data.chunks_exact_mut(2) {
            space.prepare(row);
        }
        let rows = rows_of(&data, 2);
        assert_eq!(select(&space, &[1.0, 0.0], &rows, 0.0, 3), vec![0, 2, 1]);
        // Pure relevance: the plain nearest order.
        assert_eq!(select(&space, &[1.0, 0.0], &rows, 1.0, 3), vec![0, 1, 2]);
    }

    #[test]
    fn mmr_euclid_similarity_is_minus_the_squared_distance() {
        // Query at the origin; A = (0.5, 0) is picked first. With lambda 0.38 the second pick is
        // C = (0, 2) when similarities are minus squared distances (B scores 1.015, C 1.115) but
        // would be B = (-1, 0) with plain distances (B 0.55, C 0.518).
        let space = Space::new(Metric::Euclid);
        let data = [0.5f32, 0.0, -1.0, 0.0, 0.0, 2.0];
        let rows = rows_of(&data, 2);
        assert_eq!(select(&space, &[0.0, 0.0], &rows, 0.38, 2), vec![0, 2]);
        assert_eq!(select_naive(&space, &[0.0, 0.0], &rows, 0.38, 2), vec![0, 2]);
    }
}
