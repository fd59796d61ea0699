//! Thin napi-rs bindings: typed arrays in, numbers and typed arrays out. All logic lives in
//! `quiver-core`; this crate converts types, moves heavy work off the JS thread and maps
//! errors to stable codes (errors.rs).
//!
//! Each file that JS sees has a TypeScript twin of the same name in src/native (snake_case
//! here, kebab-case there), with its tests beside it: this root and its exports <->
//! src/native/addon.ts, vector_index.rs <-> vector-index.ts, completions.rs <->
//! completions.ts, errors.rs <-> errors.ts. pool.rs, tasks.rs and result_bytes.rs are
//! internal to the crate and have none.

mod completions;
mod errors;
mod external_memory;
mod pool;
mod result_bytes;
mod sparse_index;
mod tasks;
mod vector_index;

use errors::Result;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use pool::file_pool;

/// Dot product of two equal-length Float32Arrays, read in place without copying.
#[napi(catch_unwind)]
pub fn dot(left: Float32Array, right: Float32Array) -> Result<f64> {
    if left.len() != right.len() {
        return Err(errors::error(
            quiver_core::ErrorCode::DimensionMismatch,
            format!("the vectors differ in length: {} and {}", left.len(), right.len()),
        ));
    }
    Ok(quiver_core::distance::dot_kernel()(&left, &right) as f64)
}

/// CRC-32C (Castagnoli) of a byte buffer, read in place, with the CPU's CRC instruction where it
/// has one. Twin of the portable table version in src/storage/crc32c.ts, which the tests compare.
#[napi(js_name = "crc32c")]
pub fn crc32c(bytes: Uint8ArraySlice<'_>) -> u32 {
    ::crc32c::crc32c(&bytes)
}

/// Writes into `into` the number the API prints for each of `length` float32 values of `values`
/// from `offset`: the shortest decimal that reads back as the same float32
/// (quiver_core::shortest_decimal). Twin of `float32ToNumber` in src/points/vectors.ts.
#[napi(catch_unwind)]
pub fn shortest_decimals(values: Float32ArraySlice<'_>, offset: u32, length: u32, mut into: Float64ArraySlice<'_>) -> Result<()> {
    let (start, length) = (offset as usize, length as usize);
    if start.checked_add(length).is_none_or(|end| end > values.len()) || length > into.len() {
        return Err(errors::error(
            quiver_core::ErrorCode::InvalidArgument,
            format!("{length} values from {start} of {} do not fit, or not into {} places", values.len(), into.len()),
        ));
    }
    // SAFETY: this call runs on the JS thread, which is the only one that could touch `into`
    // meanwhile; its one caller (vectors.ts) passes a scratch array of its own, never a view of
    // the buffer `values` reads.
    let places = unsafe { into.as_mut() };
    quiver_core::shortest_decimal::shortest_decimals(&values[start..start + length], &mut places[..length]);
    Ok(())
}

/// The JSON text of `length` float32 values of `values` from `offset`, `[v0,v1,…]`, each written
/// as `JSON.stringify` writes the number `shortestDecimals` gives for it
/// (quiver_core::json_number_text). Twin: `JSON.stringify` of `float32RowToNumbers`
/// (src/points/float32-row.ts).
#[napi(catch_unwind)]
pub fn json_number_row(values: Float32ArraySlice<'_>, offset: u32, length: u32) -> Result<String> {
    let (start, length) = (offset as usize, length as usize);
    let Some(row) = start.checked_add(length).and_then(|end| values.get(start..end)) else {
        return Err(errors::error(
            quiver_core::ErrorCode::InvalidArgument,
            format!("{length} values from {start} do not fit in {}", values.len()),
        ));
    };
    let mut text = Vec::new();
    quiver_core::json_number_text::write_json_row(row, &mut text);
    Ok(String::from_utf8(text).expect("the row's text is ASCII"))
}

/// The JSON text of a plain search's list, `[{"id":…,"version":…,"score":…},…]`, for the first
/// `count` entries of each array (quiver_core::json_number_text::write_scored_points), or null
/// when an id or version is not a whole number from 0 to 2^53 - 1 or a score not finite (the
/// caller then writes it itself). Twin: the TypeScript writer in src/json/scored-answer-text.ts.
#[napi(catch_unwind)]
pub fn scored_points_json(
    ids: Float64ArraySlice<'_>,
    versions: Float64ArraySlice<'_>,
    scores: Float64ArraySlice<'_>,
    count: u32,
) -> Result<Option<String>> {
    let count = count as usize;
    let (Some(ids), Some(versions), Some(scores)) = (ids.get(..count), versions.get(..count), scores.get(..count)) else {
        return Err(errors::error(quiver_core::ErrorCode::InvalidArgument, format!("{count} entries do not fit in the arrays given")));
    };
    let mut text = Vec::new();
    Ok(quiver_core::json_number_text::write_scored_points(ids, versions, scores, &mut text)
        .then(|| String::from_utf8(text).expect("the list's text is ASCII")))
}

/// Reads the rest of a JSON array of numbers, `text` (what follows its `[` or a comma, through its
/// `]`, which must be the text's last character), into `into` from `offset`: how many numbers, or
/// -1 where JSON.parse would read it otherwise or refuse it (quiver_core::json_numbers). For the
/// fast upsert parser (src/json/upsert-body-parser.ts), whose slow path then decides.
#[napi(catch_unwind)]
pub fn read_json_numbers(text: String, mut into: Float64ArraySlice<'_>, offset: u32) -> i32 {
    // SAFETY: this call runs on the JS thread, which is the only one that could touch `into`.
    let places = unsafe { into.as_mut() };
    let Some(places) = places.get_mut(offset as usize..) else { return -1 };
    match quiver_core::json_numbers::read_number_array_rest(text.as_bytes(), places) {
        Some((count, end)) if end == text.len() => i32::try_from(count).unwrap_or(-1),
        _ => -1,
    }
}

/// The arrays of at least `minimum_count` numbers in a JSON text, outside its strings, read into
/// `into` one after another (quiver_core::json_numbers::find_number_arrays): four numbers per
/// array, its start and end in the text (JavaScript string positions, `[` to just after `]`)
/// and its first place and count in `into`. For parseJson (src/json/parse.ts), which parses
/// the rest of the text itself.
#[napi(catch_unwind)]
pub fn find_json_number_arrays(text: String, minimum_count: u32, mut into: Float64ArraySlice<'_>) -> Vec<u32> {
    // SAFETY: this call runs on the JS thread, which is the only one that could touch `into`.
    let places = unsafe { into.as_mut() };
    let found = quiver_core::json_numbers::find_number_arrays(text.as_bytes(), minimum_count.max(1) as usize, places);
    // Positions and places fit in u32: a body is far below 4 GiB, `into` far below 2^32 places.
    found.iter().flat_map(|array| [array.start, array.end, array.first, array.count].map(|value| value as u32)).collect()
}

/// `find_json_number_arrays` over a UTF-8 text's bytes (a request body as it arrived), with
/// positions in bytes: no string is made of the body, nor copied into this call.
#[napi(catch_unwind)]
pub fn find_json_number_arrays_in_bytes(bytes: Uint8ArraySlice<'_>, minimum_count: u32, mut into: Float64ArraySlice<'_>) -> Vec<u32> {
    // SAFETY: this call runs on the JS thread, which is the only one that could touch `into`.
    let places = unsafe { into.as_mut() };
    let found = quiver_core::json_numbers::find_number_arrays(&bytes, minimum_count.max(1) as usize, places);
    found.iter().flat_map(|array| [array.byte_start, array.byte_end, array.first, array.count].map(|value| value as u32)).collect()
}

/// What the start-up check of the store's table files found (`checkStoreTables`).
#[napi(object)]
pub struct NativeTablesReport {
    pub files: u32,
    pub bytes: f64,
    /// The first damaged table file in name order, and `problem` the twin's sentence for it.
    pub damaged_path: Option<String>,
    pub problem: Option<String>,
}

/// Checks every block of the table files `names` of the store directory against its CRC-32C on
/// the file thread, reading files on two threads of its own (quiver_core::store_tables). The
/// caller names the files the store's manifest holds (src/storage/leveldb-table-check.ts, whose
/// `checkTable` is the twin).
#[napi(catch_unwind, ts_return_type = "Promise<NativeTablesReport>")]
pub fn check_store_tables<'env>(env: &'env Env, directory: String, names: Vec<String>) -> Result<Object<'env>> {
    tasks::run_on(
        env,
        file_pool(env),
        move || {
            let directory = std::path::PathBuf::from(directory);
            let paths: Vec<_> = names.iter().map(|name| directory.join(name)).collect();
            let threads = quiver_core::cores::available().min(2);
            quiver_core::store_tables::check_tables(&paths, threads)
                .map_err(|error| errors::from_kernel(quiver_core::KernelError::io("table check", error)))
        },
        |_env, report| {
            let (damaged_path, problem) = match report.damaged {
                Some((path, problem)) => (Some(path.display().to_string()), Some(problem)),
                None => (None, None),
            };
            Ok(NativeTablesReport { files: report.files as u32, bytes: report.bytes as f64, damaged_path, problem })
        },
    )
}

/// The SIMD instruction set the kernel picked on this CPU.
#[napi]
pub fn instruction_set() -> &'static str {
    quiver_core::distance::instruction_set()
}

/// Whether indexes made from now on back their large row segments with huge pages
/// (`storage.huge_pages`; quiver-core's mapped.rs).
#[napi]
pub fn set_huge_pages(enabled: bool) {
    quiver_core::mapped::set_huge_pages(enabled);
}
