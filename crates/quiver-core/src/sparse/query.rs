//! A query resolved against the index: its dimensions that have postings, each with an upper
//! bound on what it can add to any score, in the one order every scorer sums in.
//!
//! Both scorers add a point's contributions (query weight × stored weight, each an f32
//! product) to 0.0 in this same order, so the pruned path and its exact twin produce
//! bit-identical scores and tests can demand exact equality.

use super::inverted::InvertedIndex;
use super::vector::SparseVector;
use crate::index::Hit;
use crate::top_k::{Neighbor, TopK};

pub struct Term<'a> {
    pub weight: f32,
    /// |weight| × the list's largest |stored weight|: no entry adds more than this, whatever
    /// the signs (a negative product only lowers a score).
    pub bound: f64,
    pub slots: &'a [u32],
    pub weights: &'a [f32],
}

pub struct QueryTerms<'a> {
    /// Descending by bound (ties by dimension): the summing order, and MaxScore's order (the
    /// essential terms are a prefix, so they are added first in both scorers).
    pub terms: Vec<Term<'a>>,
    /// `suffix[i]` is the sum of the bounds of `terms[i..]` (`suffix[terms.len()]` is 0).
    pub suffix: Vec<f64>,
    /// How far an f32 score may sit above the exact sum it rounds: each of at most
    /// terms + 1 roundings (products and additions) errs by at most half an ulp of a value
    /// no larger than the sum of all bounds; doubled for headroom, plus an absolute term for
    /// products that underflow.
    pub margin: f64,
}

impl<'a> QueryTerms<'a> {
    pub fn new(index: &'a InvertedIndex, query: &SparseVector) -> QueryTerms<'a> {
        let mut resolved: Vec<(u32, Term<'a>)> = Vec::with_capacity(query.len());
        for (dimension, weight) in query.indices.iter().zip(&query.values) {
            let Some(list) = index.postings(*dimension) else { continue };
            let bound = f64::from(weight.abs()) * f64::from(list.max_magnitude());
            resolved.push((*dimension, Term { weight: *weight, bound, slots: list.slots(), weights: list.weights() }));
        }
        resolved.sort_by(|left, right| right.1.bound.total_cmp(&left.1.bound).then(left.0.cmp(&right.0)));
        let terms: Vec<Term<'a>> = resolved.into_iter().map(|(_, term)| term).collect();
        let mut suffix = vec![0.0f64; terms.len() + 1];
        for position in (0..terms.len()).rev() {
            suffix[position] = suffix[position + 1] + terms[position].bound;
        }
        let margin = suffix[0] * (terms.len() as f64 + 2.0) * f64::from(f32::EPSILON) + f64::from(f32::MIN_POSITIVE);
        QueryTerms { terms, suffix, margin }
    }
}

/// A finished score: -0.0 becomes 0.0, so ordering (which tells the two zeros apart) agrees
/// with callers that compare numerically.
#[inline]
pub fn finish(score: f32) -> f32 {
    score + 0.0
}

/// Keeps the best k by score descending, then slot ascending: a `TopK` over negated scores
/// (negation is exact, and TopK's order is distance then slot, both ascending).
pub struct BestHits {
    top: TopK,
}

impl BestHits {
    pub fn new(k: usize) -> BestHits {
        BestHits { top: TopK::new(k) }
    }

    #[inline]
    pub fn push(&mut self, slot: u32, score: f32) {
        self.top.push(Neighbor { distance: -score, slot });
    }

    /// The score a newcomer must beat once k are held (None before).
    #[inline]
    pub fn threshold(&self) -> Option<f32> {
        let worst = self.top.threshold();
        (worst != f32::INFINITY).then_some(-worst)
    }

    pub fn into_hits(self) -> Vec<Hit> {
        self.top.into_sorted().into_iter().map(|neighbor| Hit { slot: neighbor.slot, score: -neighbor.distance }).collect()
    }
}
