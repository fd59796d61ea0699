//! The filtered-search planner (docs/architecture.md §19): exact scan of the allowed slots or
//! the filtered graph walk, whichever the cost model expects to be cheaper for this query.
//! Costs are in nanoseconds on the machine the constants were measured on; only their ratio
//! matters. The constants come from `cargo run --release -p quiver-core --example
//! calibrate_filter` (what it measured is recorded in docs/architecture.md §19).

/// Which way a filtered search goes. `Auto` is what the server uses; the other two force a
/// strategy (tests comparing both with the exact answer, the calibration example).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FilterStrategy {
    #[default]
    Auto,
    Scan,
    /// The plain walk: every node passed is scored, only allowed ones are returned.
    PlainWalk,
    /// The filtered walk through allowed nodes and their two-hop neighbours
    /// (hnsw/search_filtered.rs).
    TwoHopWalk,
}

// Measured with examples/calibrate_filter.rs on 30k x 128 and 20k x 768 clustered Euclid data,
// ef 64, m0 32 (docs/architecture.md §19 has the figures): per-query time against the counts
// the walk reports (`WalkCounts`) and the allowed count for the scan, fitted by hand. The
// machine was loaded during calibration, which scales every constant alike.

/// Exact scan, per allowed point: the bitset walk and slot lookup, then a sequential row read
/// (memory-bound at large dimensions).
const SCAN_NS_PER_POINT: f64 = 40.0;
const SCAN_NS_PER_DIMENSION: f64 = 0.5;
/// Walks, per scored node: a random row read, the distance, heap work.
const WALK_NS_PER_SCORED: f64 = 300.0;
const WALK_NS_PER_DIMENSION: f64 = 0.9;
/// Two-hop walk, per link cell read: a bitset test and a visited test (plus, once per row,
/// the row's cache miss, spread over its cells).
const WALK_NS_PER_LINK: f64 = 19.0;
/// Below this share of the graph allowed, the two-hop walk is not used: the allowed nodes
/// reachable in two hops are too few to keep it connected. Recall dropped under 0.95 at 1-2% in
/// the first calibration runs, and on clusters of ~100 points (bench:ann's 100k x 128 shape) to
/// 0.877 at 5% and 0.986 at 10% at the default ef (calibrate_filter -- 100000 128 64 1000), so
/// it starts at 10%; the plain walk or the scan serve below. Guarded by filtered_tests.rs.
pub const TWO_HOP_MIN_SELECTIVITY: f64 = 0.1;

/// What the planner knows about one filtered search.
#[derive(Clone, Copy, Debug)]
pub struct PlanInput {
    pub allowed: usize,
    /// Nodes in the graph (the walk's universe); allowed / nodes is the selectivity.
    pub graph_nodes: usize,
    pub dimension: usize,
    pub m0: usize,
    pub ef: usize,
}

impl PlanInput {
    fn selectivity(&self) -> f64 {
        (self.allowed as f64 / self.graph_nodes.max(1) as f64).clamp(1e-9, 1.0)
    }

    fn per_scored(&self) -> f64 {
        WALK_NS_PER_SCORED + WALK_NS_PER_DIMENSION * self.dimension as f64
    }
}

/// Expected cost of scanning every allowed slot.
pub fn scan_cost(input: &PlanInput) -> f64 {
    input.allowed as f64 * (SCAN_NS_PER_POINT + SCAN_NS_PER_DIMENSION * input.dimension as f64)
}

/// Expected cost of the two-hop walk. Measured: it scores about ef·(1 + s·m0/4) nodes and
/// expands about ef candidates, each reading its own links and, while fewer than m0 allowed
/// neighbours are met, the links of failing neighbours — about min((1-s)·m0, (1-s)/s) of them.
pub fn walk_cost(input: &PlanInput) -> f64 {
    let selectivity = input.selectivity();
    let (ef, m0) = (input.ef as f64, input.m0 as f64);
    let scored = (ef * (1.0 + selectivity * m0 / 4.0)).min(input.allowed as f64);
    let passes = ((1.0 - selectivity) * m0).min((1.0 - selectivity) / selectivity);
    let links = ef * m0 * (1.0 + passes);
    scored * input.per_scored() + links * WALK_NS_PER_LINK
}

/// Expected cost of the plain walk: it scores every node it passes and stops only once `ef`
/// allowed ones are found. Measured: about ef·(1 + m0/4) / s^0.65 nodes, at most the graph.
pub fn plain_walk_cost(input: &PlanInput) -> f64 {
    let (ef, m0) = (input.ef as f64, input.m0 as f64);
    let scored = (ef * (1.0 + m0 / 4.0) / input.selectivity().powf(0.65)).min(input.graph_nodes as f64);
    scored * input.per_scored()
}

/// The strategy with the lowest expected cost (never `Auto`). The two-hop walk is only
/// considered from `TWO_HOP_MIN_SELECTIVITY` on: below it the allowed nodes reachable in two
/// hops are too few to keep the walk connected (recall drops, measured in filtered_tests.rs).
pub fn cheapest(input: &PlanInput) -> FilterStrategy {
    if input.graph_nodes == 0 {
        return FilterStrategy::Scan;
    }
    let selectivity = input.allowed as f64 / input.graph_nodes as f64;
    let mut best = (scan_cost(input), FilterStrategy::Scan);
    let plain = plain_walk_cost(input);
    if plain < best.0 {
        best = (plain, FilterStrategy::PlainWalk);
    }
    if selectivity >= TWO_HOP_MIN_SELECTIVITY {
        let two_hop = walk_cost(input);
        if two_hop < best.0 {
            best = (two_hop, FilterStrategy::TwoHopWalk);
        }
    }
    best.1
}

/// True when the exact scan is expected to be the cheapest way (or the graph cannot serve).
pub fn prefer_scan(input: &PlanInput) -> bool {
    cheapest(input) == FilterStrategy::Scan
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(allowed: usize, graph_nodes: usize, dimension: usize) -> PlanInput {
        PlanInput { allowed, graph_nodes, dimension, m0: 32, ef: 64 }
    }

    #[test]
    fn planner_scans_a_handful_of_allowed_points() {
        assert!(prefer_scan(&input(50, 100_000, 128)));
        assert!(prefer_scan(&input(1, 1_000_000, 768)));
    }

    #[test]
    fn planner_walks_the_graph_when_most_points_are_allowed() {
        assert!(!prefer_scan(&input(100_000, 100_000, 128)));
        assert!(!prefer_scan(&input(50_000, 100_000, 768)));
    }

    #[test]
    fn planner_walks_a_ten_percent_filter_of_a_hundred_thousand_on_128_dimensions() {
        // The case a byte budget sent to the scan although the walk is faster there.
        assert!(!prefer_scan(&input(10_000, 100_000, 128)));
    }

    #[test]
    fn planner_scan_cost_grows_with_the_dimension_faster_than_the_walk_cost() {
        let small = input(5_000, 50_000, 128);
        let large = input(5_000, 50_000, 768);
        assert!(scan_cost(&large) / scan_cost(&small) > walk_cost(&large) / walk_cost(&small));
    }

    #[test]
    fn planner_without_a_graph_always_scans() {
        assert!(prefer_scan(&input(1_000_000, 0, 4)));
    }
}
