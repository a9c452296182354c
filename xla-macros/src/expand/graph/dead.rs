//! Dropping the nodes the result does not depend on.

use std::collections::HashMap;

use super::{Graph, Tree, Value};

impl Graph {
    /// Keep only nodes the result depends on (and renumber them, keeping their order).
    pub(super) fn without_dead_nodes(self) -> Graph {
        let mut live = vec![false; self.nodes.len()];
        let mut stack: Vec<usize> = self.result.leaves().iter().map(|v| v.node).collect();
        // Side effects run whether or not their results are read: host I/O, and loops and
        // branches holding host I/O or collectives (peers wait for those).
        stack.extend(
            self.nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| n.kind.has_side_effect())
                .map(|(i, _)| i),
        );
        while let Some(n) = stack.pop() {
            if !live[n] {
                live[n] = true;
                stack.extend(self.nodes[n].inputs.iter().map(|v| v.node));
            }
        }
        let mut remap = HashMap::new();
        let mut nodes = Vec::new();
        for (i, node) in self.nodes.into_iter().enumerate() {
            if live[i] {
                remap.insert(i, nodes.len());
                nodes.push(node);
            }
        }
        let fix = |v: &Value| Value {
            node: remap[&v.node],
            out: v.out,
        };
        for node in &mut nodes {
            node.inputs = node.inputs.iter().map(fix).collect();
        }
        Graph {
            nodes,
            result: remap_tree(&self.result, &fix),
        }
    }
}

fn remap_tree(t: &Tree, f: &impl Fn(&Value) -> Value) -> Tree {
    match t {
        Tree::Leaf(v) => Tree::Leaf(f(v)),
        Tree::Tuple(ts) => Tree::Tuple(ts.iter().map(|t| remap_tree(t, f)).collect()),
        Tree::Token => Tree::Token,
    }
}
