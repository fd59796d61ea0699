//! One validated sparse vector: indices strictly ascending, one finite value each.

use crate::error::{KernelError, KernelResult};

/// Most non-zeros one vector (or one query) may hold: far above any learned sparse model
/// (SPLADE keeps a few hundred) and bounds what one call can make the kernel allocate.
pub const MAX_NON_ZEROS: usize = 1 << 16;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SparseVector {
    pub indices: Vec<u32>,
    pub values: Vec<f32>,
}

impl SparseVector {
    /// Checks and sorts a caller's vector. Refused with INVALID_ARGUMENT: unequal lengths,
    /// more than `MAX_NON_ZEROS` entries, a repeated index, a NaN or infinite value. Indices
    /// may come in any order; they are stored ascending.
    pub fn new(indices: &[u32], values: &[f32]) -> KernelResult<SparseVector> {
        if indices.len() != values.len() {
            return Err(KernelError::invalid(format!(
                "a sparse vector needs as many values as indices, got {} indices and {} values",
                indices.len(),
                values.len()
            )));
        }
        if indices.len() > MAX_NON_ZEROS {
            return Err(KernelError::invalid(format!("a sparse vector holds at most {MAX_NON_ZEROS} entries, got {}", indices.len())));
        }
        if let Some(position) = values.iter().position(|value| !value.is_finite()) {
            return Err(KernelError::invalid(format!("sparse value {} at position {position} is not finite", values[position])));
        }
        let mut vector = if indices.windows(2).all(|pair| pair[0] < pair[1]) {
            SparseVector { indices: indices.to_vec(), values: values.to_vec() }
        } else {
            let mut pairs: Vec<(u32, f32)> = indices.iter().copied().zip(values.iter().copied()).collect();
            pairs.sort_unstable_by_key(|pair| pair.0);
            SparseVector { indices: pairs.iter().map(|pair| pair.0).collect(), values: pairs.iter().map(|pair| pair.1).collect() }
        };
        if let Some(pair) = vector.indices.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(KernelError::invalid(format!("sparse index {} appears more than once", pair[0])));
        }
        vector.indices.shrink_to_fit();
        vector.values.shrink_to_fit();
        Ok(vector)
    }

    pub fn len(&self) -> usize {
        self.indices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn sparse_vector_sorts_indices_and_keeps_values_with_them() {
        let vector = SparseVector::new(&[7, 2, 5], &[0.7, 0.2, -0.5]).unwrap();
        assert_eq!(vector.indices, vec![2, 5, 7]);
        assert_eq!(vector.values, vec![0.2, -0.5, 0.7]);
    }

    #[test]
    fn sparse_vector_refuses_unequal_lengths_duplicates_and_non_finite_values() {
        for (indices, values) in [
            (vec![1u32, 2], vec![1.0f32]),
            (vec![3, 1, 3], vec![1.0, 2.0, 3.0]),
            (vec![1], vec![f32::NAN]),
            (vec![1, 2], vec![1.0, f32::INFINITY]),
        ] {
            let error = SparseVector::new(&indices, &values).unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidArgument, "{indices:?} {values:?}");
        }
        assert!(SparseVector::new(&[], &[]).unwrap().is_empty());
    }
}
