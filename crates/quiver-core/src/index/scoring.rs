//! Scoring given slots rather than searching for them: re-scoring prefetched points and the
//! maximal-marginal-relevance pick (mmr.rs). Both use the very distance routine the searches
//! use, on the query prepared the same way, so a point's score is the same float whichever path
//! computed it (docs/api.md §5).

use super::{VectorIndex, MAX_K};
use crate::error::{KernelError, KernelResult};
use crate::mmr;

impl VectorIndex {
    /// The query checked and prepared exactly as `search` prepares it.
    fn prepared_query(&self, query: &[f32]) -> KernelResult<Vec<f32>> {
        let dimension = self.shared.params.dimension;
        if query.len() != dimension {
            return Err(KernelError::dimension(dimension, query.len()));
        }
        if query.iter().any(|value| !value.is_finite()) {
            return Err(KernelError::invalid("query holds a non-finite value"));
        }
        let mut prepared = query.to_vec();
        self.shared.store.prepare(&mut prepared);
        Ok(prepared)
    }

    /// The wire score (docs/api.md §4.4) of each slot against `query`, in the order given; NaN
    /// for a slot that holds no live vector.
    pub fn score_slots(&self, query: &[f32], slots: &[u32]) -> KernelResult<Vec<f32>> {
        let prepared = self.prepared_query(query)?;
        let store = &self.shared.store;
        let space = store.space();
        Ok(slots
            .iter()
            .map(|slot| match store.live_vector(*slot) {
                Some(vector) => space.score(space.distance(&prepared, vector)),
                None => f32::NAN,
            })
            .collect())
    }

    /// Maximal marginal relevance over `slots` (mmr.rs): positions into `slots`, in pick order,
    /// at most `limit`. Slots without a live vector are never picked. `lambda` = 1 - diversity.
    pub fn mmr_select(&self, query: &[f32], slots: &[u32], lambda: f32, limit: usize) -> KernelResult<Vec<u32>> {
        let prepared = self.prepared_query(query)?;
        if !(0.0..=1.0).contains(&lambda) {
            return Err(KernelError::invalid(format!("lambda must be between 0 and 1, got {lambda}")));
        }
        if slots.len() > mmr::MAX_CANDIDATES {
            return Err(KernelError::invalid(format!("at most {} candidates, got {}", mmr::MAX_CANDIDATES, slots.len())));
        }
        if limit > MAX_K {
            return Err(KernelError::invalid(format!("limit must be at most {MAX_K}, got {limit}")));
        }
        let store = &self.shared.store;
        let (positions, rows): (Vec<u32>, Vec<std::borrow::Cow<'_, [f32]>>) = (0u32..)
            .zip(slots)
            .filter_map(|(position, slot)| store.live_vector(*slot).map(|vector| (position, store.comparable(vector))))
            .unzip();
        let rows: Vec<&[f32]> = rows.iter().map(|row| &**row).collect();
        Ok(mmr::select(store.space(), &prepared, &rows, lambda, limit).into_iter().map(|picked| positions[picked]).collect())
    }
}

#[cfg(test)]
mod tests {
    use crate::distance::Metric;
    use crate::index::{IndexParams, SearchParams, VectorIndex};
    use crate::mmr;
    use crate::test_support::clustered;

    fn filled(metric: Metric, dimension: usize, count: usize) -> (VectorIndex, Vec<f32>) {
        let index = VectorIndex::new(IndexParams { indexing_threads: 1, ..IndexParams::new(dimension, metric) }).unwrap();
        let data = clustered(count, dimension, 4, 3);
        let slots: Vec<u32> = (0..count as u32).collect();
        index.upsert(&slots, &data).unwrap();
        index.wait_indexed();
        (index, data)
    }

    #[test]
    fn score_slots_gives_the_search_scores_bit_for_bit() {
        for metric in [Metric::Cosine, Metric::Dot, Metric::Euclid, Metric::Manhattan] {
            for dimension in [1usize, 3, 7, 15, 16, 17, 31, 100] {
                let (index, data) = filled(metric, dimension, 200);
                let query = &data[dimension * 5..dimension * 6].iter().map(|value| value * 0.7 + 0.1).collect::<Vec<f32>>();
                for exact in [false, true] {
                    let hits =
                        index.search(query, 50, &SearchParams { ef: Some(200), exact, allowed: None, ..SearchParams::default() }).unwrap();
                    let slots: Vec<u32> = hits.iter().map(|hit| hit.slot).collect();
                    let scores = index.score_slots(query, &slots).unwrap();
                    for (hit, score) in hits.iter().zip(scores) {
                        assert_eq!(hit.score.to_bits(), score.to_bits(), "{metric:?} {dimension} slot {}", hit.slot);
                    }
                }
            }
        }
    }

    #[test]
    fn score_slots_marks_empty_and_deleted_slots_nan() {
        let (index, data) = filled(Metric::Dot, 4, 10);
        index.delete(&[3]);
        let scores = index.score_slots(&data[0..4], &[3, 99, 0]).unwrap();
        assert!(scores[0].is_nan() && scores[1].is_nan() && !scores[2].is_nan());
    }

    #[test]
    fn mmr_select_picks_as_the_selection_over_the_stored_rows_and_skips_missing_slots() {
        let (index, data) = filled(Metric::Cosine, 8, 60);
        index.delete(&[7]);
        let slots: Vec<u32> = vec![7, 100, 3, 9, 12, 40, 41, 2, 55];
        let query = &data[0..8];
        let picked = index.mmr_select(query, &slots, 0.4, 5).unwrap();
        let live: Vec<u32> = slots.iter().copied().filter(|slot| index.has(*slot)).collect();
        let rows = index.vectors(&live);
        let rows: Vec<&[f32]> = rows.chunks_exact(8).collect();
        let mut prepared = query.to_vec();
        index.shared.store.prepare(&mut prepared);
        let expected: Vec<u32> = mmr::select_naive(index.shared.store.space(), &prepared, &rows, 0.4, 5)
            .into_iter()
            .map(|position| slots.iter().position(|slot| *slot == live[position]).unwrap() as u32)
            .collect();
        assert_eq!(picked, expected);
        assert!(!picked.contains(&0) && !picked.contains(&1));
    }

    #[test]
    fn mmr_select_refuses_a_lambda_outside_zero_to_one() {
        let (index, data) = filled(Metric::Dot, 4, 10);
        assert!(index.mmr_select(&data[0..4], &[0, 1], 1.5, 2).is_err());
        assert!(index.mmr_select(&data[0..4], &[0, 1], f32::NAN, 2).is_err());
    }
}
