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

/// Exact scan: a sequential pass over the allowed rows (bitset walk, slot table, one distance).
const SCAN_NS_PER_POINT: f64 = 12.0;
const SCAN_NS_PER_DIMENSION: f64 = 0.07;
/// Filtered walk: each scored node costs a random row read plus heap work; each link cell read
/// one bitset and one visited test.
const WALK_NS_PER_SCORED: f64 = 60.0;
const WALK_NS_PER_DIMENSION: f64 = 0.09;
const WALK_NS_PER_LINK: f64 = 2.0;
/// Nodes expanded per unit of ef, and the share of a step's gathered nodes still unvisited
/// (measured averages of the filtered walk on clustered data, see the calibration example).
const WALK_STEPS_PER_EF: f64 = 1.6;
const WALK_FRESH_SHARE: f64 = 0.45;
/// Below this share of the graph allowed, the two-hop walk is not used.
pub const TWO_HOP_MIN_SELECTIVITY: f64 = 0.05;

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

/// Expected cost of scanning every allowed slot.
pub fn scan_cost(input: &PlanInput) -> f64 {
    input.allowed as f64 * (SCAN_NS_PER_POINT + SCAN_NS_PER_DIMENSION * input.dimension as f64)
}

/// Expected cost of the filtered walk: ~ef steps, each reading the candidate's links and, when
/// too few pass, the second hop through failing neighbours until m0 allowed are gathered, then
/// scoring the gathered nodes not seen before. Never more scoring than there are allowed slots.
pub fn walk_cost(input: &PlanInput) -> f64 {
    let nodes = input.graph_nodes.max(1) as f64;
    let selectivity = (input.allowed as f64 / nodes).clamp(1e-9, 1.0);
    let m0 = input.m0 as f64;
    let steps = WALK_STEPS_PER_EF * input.ef as f64;
    // One hop finds selectivity·m0 allowed; each failing neighbour passed through adds
    // selectivity·m0 more, and the walk stops passing through once m0 are gathered.
    let one_hop = selectivity * m0;
    let passes = ((m0 - one_hop) / one_hop).clamp(0.0, (1.0 - selectivity) * m0);
    let gathered = (one_hop * (1.0 + passes)).min(m0);
    let links = steps * m0 * (1.0 + passes);
    let scored = (steps * gathered * WALK_FRESH_SHARE).min(input.allowed as f64);
    scored * (WALK_NS_PER_SCORED + WALK_NS_PER_DIMENSION * input.dimension as f64) + links * WALK_NS_PER_LINK
}

/// Expected cost of the plain walk: it scores every node it passes and stops only once `ef`
/// allowed ones are found, so with selectivity s it scores about ef·m0·share/s nodes.
pub fn plain_walk_cost(input: &PlanInput) -> f64 {
    let nodes = input.graph_nodes.max(1) as f64;
    let selectivity = (input.allowed as f64 / nodes).clamp(1e-9, 1.0);
    let steps = WALK_STEPS_PER_EF * input.ef as f64 / selectivity;
    let scored = (steps * input.m0 as f64 * WALK_FRESH_SHARE).min(nodes);
    let links = (steps * input.m0 as f64).min(nodes * input.m0 as f64);
    scored * (WALK_NS_PER_SCORED + WALK_NS_PER_DIMENSION * input.dimension as f64) + links * WALK_NS_PER_LINK
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
