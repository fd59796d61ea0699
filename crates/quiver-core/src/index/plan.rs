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

// Fitted to examples/calibrate_filter.rs runs on bench:ann's data shapes (100k x 128 Euclid in
// 1,000 clusters, 50k x 768 in 500; m0 32; ef 10-32; a quiet machine, 2026-11-24), per-query
// time against the nodes each strategy scores and the link cells it reads (docs/architecture.md
// §19 has the figures).

/// Exact scan, per allowed point: the bitset walk and slot lookup, then a sequential row read
/// (memory-bound at large dimensions).
const SCAN_NS_PER_POINT: f64 = 40.0;
const SCAN_NS_PER_DIMENSION: f64 = 0.5;
/// Walks, per scored node: a random row read, the distance, heap work (243 ns measured at
/// 128-d, 660 ns at 768-d).
const WALK_NS_PER_SCORED: f64 = 160.0;
const WALK_NS_PER_DIMENSION: f64 = 0.65;
/// Two-hop walk, per link cell read: a bitset test and a visited test (plus, once per row,
/// the row's cache miss, spread over its cells).
const WALK_NS_PER_LINK: f64 = 8.0;
/// Below this share of the graph allowed, the two-hop walk is not used: the allowed nodes
/// reachable in two hops are too few to keep it connected. Recall dropped under 0.95 at 1-2% in
/// the first calibration runs, and on clusters of ~100 points (bench:ann's 100k x 128 shape) to
/// 0.877 at 5% and 0.977 at 8% at the default ef, against 0.984 at 9% and 0.978-0.986 at 10%
/// (calibrate_filter -- 100000 128 64 1000); filtered_tests.rs read 0.955 at 8% and 0.98 at 9%.
/// So it starts at 9%: a filter meant as "10%" often allows a few points fewer (bench:ann's
/// allows 9,949 of 100,000), and at the default ef the plain walk costs ~4x the two-hop walk
/// there. The plain walk or the scan serve below. Guarded by filtered_tests.rs.
pub const TWO_HOP_MIN_SELECTIVITY: f64 = 0.09;
/// The shortest candidate list the two-hop walk runs with when the planner picks it, at 128
/// dimensions and below and at 768 and above (log-linear between). Its list holds allowed nodes
/// only, so at a small `ef` it stops before it has bridged to the allowed points of the next
/// clusters, where the plain walk, which queues failing nodes too, has already crossed them. At
/// 10% allowed on bench:ann's shapes (clusters of ~100 points) the plain walk read 0.989 (128-d)
/// and 0.985-0.997 (768-d) at ef 10; the two-hop walk read 0.831 / 0.927 / 0.950 / 0.985 at ef
/// 10 / 24 / 32 / 48 on 128-d, and 0.878-0.961 / 0.960-0.982 at ef 10 / 24 on 768-d. These are
/// the `ef` from which it stays within 2.5 points of the plain walk at ef 10, so raising `ef`
/// never costs more than that when the planner switches walks (docs/architecture.md §19).
pub const TWO_HOP_MIN_EF_LOW_DIMENSION: usize = 48;
pub const TWO_HOP_MIN_EF_HIGH_DIMENSION: usize = 24;

/// The candidate-list length the two-hop walk runs with for a search asking `ef`.
pub fn two_hop_ef(ef: usize, dimension: usize) -> usize {
    let (low, high) = (128.0f64, 768.0f64);
    let position = ((dimension.max(1) as f64).ln() - low.ln()) / (high.ln() - low.ln());
    let (from, to) = (TWO_HOP_MIN_EF_LOW_DIMENSION as f64, TWO_HOP_MIN_EF_HIGH_DIMENSION as f64);
    let floor = from + (to - from) * position.clamp(0.0, 1.0);
    ef.max(floor.round() as usize)
}

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

/// Nodes any walk scores before its list settles: the upper levels' greedy descent and the
/// first `ef` of level 0 (measured 148, 175, 200, 222 at ef 10, 16, 24, 32 unfiltered, m0 32).
fn settled_scored(ef: f64, m0: f64) -> f64 {
    3.5 * (32.0 + ef) * m0 / 32.0
}

/// Expected cost of the two-hop walk at `two_hop_ef`. Measured: it scores about
/// ef·(1 + m0/4) allowed nodes whatever the selectivity, and expands about ef candidates, each
/// reading its own links and, while fewer than m0 allowed neighbours are met, the links of
/// failing neighbours — about min((1-s)·m0, (1-s)/s) of them.
pub fn walk_cost(input: &PlanInput) -> f64 {
    let selectivity = input.selectivity();
    let (ef, m0) = (two_hop_ef(input.ef, input.dimension) as f64, input.m0 as f64);
    let scored = settled_scored(ef, m0).max(ef * (1.0 + m0 / 4.0) + 20.0).min(input.allowed as f64 + settled_scored(0.0, m0));
    let passes = ((1.0 - selectivity) * m0).min((1.0 - selectivity) / selectivity);
    let links = ef * m0 * (1.0 + passes);
    scored * input.per_scored() + links * WALK_NS_PER_LINK
}

/// Expected cost of the plain walk: it scores every node it passes and stops only once `ef`
/// allowed ones are found, so it scores the nodes of a ball holding about 4.5·ef/s of them
/// (measured 446 at 10%, 886 at 5%, 5,100 at 1% for ef 10), at most the graph.
pub fn plain_walk_cost(input: &PlanInput) -> f64 {
    let (ef, m0) = (input.ef as f64, input.m0 as f64);
    let scored = settled_scored(ef, m0).max(4.5 * ef / input.selectivity()).min(input.graph_nodes as f64);
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
    fn two_hop_walk_runs_at_no_less_than_its_floor_which_falls_with_the_dimension() {
        assert_eq!(two_hop_ef(10, 128), TWO_HOP_MIN_EF_LOW_DIMENSION);
        assert_eq!(two_hop_ef(10, 16), TWO_HOP_MIN_EF_LOW_DIMENSION);
        assert_eq!(two_hop_ef(10, 768), TWO_HOP_MIN_EF_HIGH_DIMENSION);
        assert_eq!(two_hop_ef(10, 4096), TWO_HOP_MIN_EF_HIGH_DIMENSION);
        let middle = two_hop_ef(10, 384);
        assert!(middle < TWO_HOP_MIN_EF_LOW_DIMENSION && middle > TWO_HOP_MIN_EF_HIGH_DIMENSION);
        assert_eq!(two_hop_ef(100, 128), 100);
    }

    #[test]
    fn planner_without_a_graph_always_scans() {
        assert!(prefer_scan(&input(1_000_000, 0, 4)));
    }
}
