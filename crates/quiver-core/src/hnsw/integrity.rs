//! `check_integrity`: the invariants a correct graph keeps, checked exhaustively. For tests and
//! for diagnosing a loaded checkpoint; linear in the graph size.

use super::Graph;
use crate::store::VectorStore;
use std::collections::VecDeque;

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct IntegrityReport {
    pub nodes: usize,
    pub links: usize,
    /// Live nodes not reachable from the entry point through level 0.
    pub unreachable: usize,
    pub problems: Vec<String>,
}

impl IntegrityReport {
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

impl Graph {
    pub fn check_integrity(&self, store: &VectorStore) -> IntegrityReport {
        let mut report = IntegrityReport::default();
        let mut links = Vec::new();
        let mut max_level = None;
        for slot in 0..self.slot_bound() {
            let Some(top) = self.level(slot) else { continue };
            report.nodes += 1;
            max_level = max_level.max(Some(top));
            if store.vector(slot).is_none() {
                report.problems.push(format!("node {slot} has no vector"));
            }
            for level in 0..=top {
                self.read_links(slot, level, &mut links);
                report.links += links.len();
                if links.len() > self.params.capacity(level) {
                    report.problems.push(format!("node {slot} level {level} has {} links", links.len()));
                }
                let mut sorted = links.clone();
                sorted.sort_unstable();
                sorted.dedup();
                if sorted.len() != links.len() {
                    report.problems.push(format!("node {slot} level {level} links a node twice"));
                }
                for link in &links {
                    if *link == slot {
                        report.problems.push(format!("node {slot} level {level} links itself"));
                    }
                    if store.vector(*link).is_none() {
                        report.problems.push(format!("node {slot} level {level} links {link}, which has no vector"));
                    }
                }
            }
        }
        if report.nodes != self.node_count() {
            report.problems.push(format!("node count says {} but {} nodes exist", self.node_count(), report.nodes));
        }
        match self.entry() {
            None if report.nodes > 0 => report.problems.push("nodes exist but there is no entry point".to_string()),
            None => {}
            Some((entry, level)) => {
                if self.level(entry) != Some(level) {
                    report.problems.push(format!("entry point {entry} is not a node of level {level}"));
                }
                if Some(level) != max_level {
                    report.problems.push(format!("entry level {level} is not the top level {max_level:?}"));
                }
                report.unreachable = self.unreachable_live_nodes(store, entry);
            }
        }
        report
    }

    fn unreachable_live_nodes(&self, store: &VectorStore, entry: u32) -> usize {
        let mut seen = vec![false; self.slot_bound() as usize];
        let mut queue = VecDeque::from([entry]);
        let mut links = Vec::new();
        if let Some(flag) = seen.get_mut(entry as usize) {
            *flag = true;
        }
        while let Some(slot) = queue.pop_front() {
            self.read_links(slot, 0, &mut links);
            for link in &links {
                if let Some(flag) = seen.get_mut(*link as usize) {
                    if !*flag && self.contains(*link) {
                        *flag = true;
                        queue.push_back(*link);
                    }
                }
            }
        }
        (0..self.slot_bound()).filter(|slot| self.contains(*slot) && store.is_live(*slot) && !seen[*slot as usize]).count()
    }
}
