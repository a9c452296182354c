//! Statically shaped tensors.
