//! Search results cross to JS as one plain ArrayBuffer (copied into JS-owned memory) instead of
//! an object holding two externally backed typed arrays: an external buffer costs a global
//! handle, a finalizer and a backing-store registration each, several microseconds per search.
//! Layout (native endian, read by src/native/vector-index.ts):
//!   single search: slots u32 × n, then scores f32 × n;
//!   batch: counts u32 × queries, then slots u32 × total, then scores f32 × total;
//!   scoring given slots: scores f32 × slots; an MMR pick: positions u32 × picked.

use napi::bindgen_prelude::*;
use napi::sys;
use quiver_core::Hit;

pub struct ResultBytes(pub Vec<u8>);

impl ResultBytes {
    pub fn single(hits: &[Hit]) -> ResultBytes {
        let mut bytes = Vec::with_capacity(hits.len() * 8);
        bytes.extend(hits.iter().flat_map(|hit| hit.slot.to_ne_bytes()));
        bytes.extend(hits.iter().flat_map(|hit| hit.score.to_ne_bytes()));
        ResultBytes(bytes)
    }

    pub fn batch(lists: &[Vec<Hit>]) -> ResultBytes {
        let total: usize = lists.iter().map(Vec::len).sum();
        let mut bytes = Vec::with_capacity(lists.len() * 4 + total * 8);
        bytes.extend(lists.iter().flat_map(|hits| (hits.len() as u32).to_ne_bytes()));
        bytes.extend(lists.iter().flatten().flat_map(|hit| hit.slot.to_ne_bytes()));
        bytes.extend(lists.iter().flatten().flat_map(|hit| hit.score.to_ne_bytes()));
        ResultBytes(bytes)
    }
}

impl ResultBytes {
    pub fn scores(scores: &[f32]) -> ResultBytes {
        ResultBytes(scores.iter().flat_map(|score| score.to_ne_bytes()).collect())
    }

    pub fn positions(positions: &[u32]) -> ResultBytes {
        ResultBytes(positions.iter().flat_map(|position| position.to_ne_bytes()).collect())
    }
}

impl ToNapiValue for ResultBytes {
    unsafe fn to_napi_value(env: sys::napi_env, value: Self) -> Result<sys::napi_value> {
        let mut data = std::ptr::null_mut();
        let mut buffer = std::ptr::null_mut();
        check_status!(sys::napi_create_arraybuffer(env, value.0.len(), &mut data, &mut buffer), "creating a result buffer")?;
        if !value.0.is_empty() {
            std::ptr::copy_nonoverlapping(value.0.as_ptr(), data as *mut u8, value.0.len());
        }
        Ok(buffer)
    }
}

impl TypeName for ResultBytes {
    fn type_name() -> &'static str {
        "ArrayBuffer"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}
