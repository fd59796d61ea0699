//! The start-up check of the store's table files (docs/durability.md): every block of every
//! LevelDB table against its CRC-32C, before the store opens. The format and the reasons are
//! documented in its TypeScript twin, src/storage/leveldb-table-check.ts, whose messages these
//! match word for word (the twin test compares them on real and damaged files).
//!
//! Here so that a start reads and checks the files on two threads, off the JS thread, instead of
//! a file at a time with a call per block (docs/architecture.md §21).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const FOOTER_SIZE: usize = 48;
const TRAILER_SIZE: usize = 5;
const TABLE_MAGIC: u64 = 0xdb47_7524_8b80_fb57;

/// LevelDB stores CRCs masked (so a CRC over data that holds CRCs stays well distributed).
fn masked(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(0xa282_ead8)
}

#[derive(Clone, Copy)]
struct Handle {
    offset: u64,
    size: u64,
}

struct Reader<'a> {
    bytes: &'a [u8],
    position: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, position: 0 }
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut result: u64 = 0;
        for count in 0..10 {
            let Some(&byte) = self.bytes.get(self.position) else {
                return Err("a varint runs past the end".into());
            };
            self.position += 1;
            // The twin adds in doubles; 7-bit groups past the 64th bit cannot occur in a valid file.
            result = result.wrapping_add(((byte & 0x7f) as u64).wrapping_shl(7 * count));
            if byte & 0x80 == 0 {
                return Ok(result);
            }
        }
        Err("a varint is too long".into())
    }

    fn handle(&mut self) -> Result<Handle, String> {
        Ok(Handle { offset: self.varint()?, size: self.varint()? })
    }
}

/// The block at `handle` after checking its trailer's checksum.
fn checked_block<'a>(file: &'a [u8], handle: Handle, what: &str) -> Result<&'a [u8], String> {
    let end = handle.offset.checked_add(handle.size).filter(|end| end + TRAILER_SIZE as u64 <= file.len() as u64);
    let Some(end) = end else {
        return Err(format!("{what} at offset {} runs past the end of the file", handle.offset));
    };
    let (start, end) = (handle.offset as usize, end as usize);
    let stored = u32::from_le_bytes(file[end + 1..end + 5].try_into().expect("four bytes"));
    if masked(crc32c::crc32c(&file[start..end + 1])) != stored {
        return Err(format!("{what} at offset {} fails its checksum", handle.offset));
    }
    Ok(&file[start..end])
}

/// The block handles an (uncompressed) index block holds.
fn index_handles(block: &[u8]) -> Result<Vec<Handle>, String> {
    if block.len() < 4 {
        return Err("the index block has an impossible restart count".into());
    }
    let restarts = u32::from_le_bytes(block[block.len() - 4..].try_into().expect("four bytes")) as u64;
    let entries_end = (block.len() as u64 - 4).checked_sub(restarts * 4);
    let Some(entries_end) = entries_end else {
        return Err("the index block has an impossible restart count".into());
    };
    let mut reader = Reader::new(block);
    let mut handles = Vec::new();
    while (reader.position as u64) < entries_end {
        reader.varint()?; // shared key bytes
        let unshared = reader.varint()?;
        let value_length = reader.varint()?;
        let value_start = reader.position.saturating_add(unshared as usize).min(block.len());
        let value_end = value_start.saturating_add(value_length as usize).min(block.len());
        handles.push(Reader::new(&block[value_start..value_end]).handle()?);
        reader.position = value_start.saturating_add(value_length as usize);
    }
    Ok(handles)
}

/// Snappy's raw format (LevelDB's compression type 1), enough to read an index block.
pub fn snappy_decompress(input: &[u8]) -> Result<Vec<u8>, String> {
    let mut reader = Reader::new(input);
    let length = reader.varint()?;
    // An index block is small; a stated size beyond the input's possible expansion is damage.
    if length > (input.len() as u64).saturating_mul(64) + 64 {
        return Err("a compressed block expands past its stated size".into());
    }
    let length = length as usize;
    let mut output: Vec<u8> = Vec::with_capacity(length);
    let mut position = reader.position;
    let need = |position: usize, count: usize| -> Result<(), String> {
        if position + count > input.len() {
            Err("a compressed block runs past its end".into())
        } else {
            Ok(())
        }
    };
    let little_endian = |bytes: &[u8]| bytes.iter().rev().fold(0usize, |value, &byte| (value << 8) | byte as usize);
    while position < input.len() {
        let tag = input[position] as usize;
        position += 1;
        let kind = tag & 3;
        if kind == 0 {
            let mut literal = (tag >> 2) + 1;
            if literal > 60 {
                let bytes = literal - 60;
                need(position, bytes)?;
                literal = little_endian(&input[position..position + bytes]) + 1;
                position += bytes;
            }
            need(position, literal)?;
            if output.len() + literal > length {
                return Err("a compressed block expands past its stated size".into());
            }
            output.extend_from_slice(&input[position..position + literal]);
            position += literal;
            continue;
        }
        let (copy_length, offset) = match kind {
            1 => {
                need(position, 1)?;
                let offset = ((tag >> 5) << 8) | input[position] as usize;
                position += 1;
                (4 + ((tag >> 2) & 7), offset)
            }
            2 => {
                need(position, 2)?;
                let offset = little_endian(&input[position..position + 2]);
                position += 2;
                ((tag >> 2) + 1, offset)
            }
            _ => {
                need(position, 4)?;
                let offset = little_endian(&input[position..position + 4]);
                position += 4;
                ((tag >> 2) + 1, offset)
            }
        };
        if offset == 0 || offset > output.len() || output.len() + copy_length > length {
            return Err("a compressed block has a bad back-reference".into());
        }
        // Byte by byte: a copy may overlap what it writes.
        for _ in 0..copy_length {
            output.push(output[output.len() - offset]);
        }
    }
    if output.len() != length {
        return Err("a compressed block is shorter than its stated size".into());
    }
    Ok(output)
}

/// Checks one table file's bytes; the error names the problem (the twin's `checkTable`).
pub fn check_table(file: &[u8]) -> Result<(), String> {
    if file.len() < FOOTER_SIZE {
        return Err(format!("the file is too short ({} bytes) to be a table", file.len()));
    }
    let footer = &file[file.len() - FOOTER_SIZE..];
    if u64::from_le_bytes(footer[FOOTER_SIZE - 8..].try_into().expect("eight bytes")) != TABLE_MAGIC {
        return Err("the footer has no table magic number".into());
    }
    let mut reader = Reader::new(footer);
    let metaindex = reader.handle()?;
    let index = reader.handle()?;
    checked_block(file, metaindex, "the metaindex block")?;
    let stored = checked_block(file, index, "the index block")?;
    let compression = file[(index.offset + index.size) as usize];
    let decompressed;
    let index_block = match compression {
        0 => stored,
        1 => {
            decompressed = snappy_decompress(stored)?;
            &decompressed[..]
        }
        other => return Err(format!("the index block has unknown compression type {other}")),
    };
    for handle in index_handles(index_block)? {
        checked_block(file, handle, "a data block")?;
    }
    Ok(())
}

/// What checking a store's table files found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct TablesReport {
    pub files: usize,
    pub bytes: u64,
    /// The first damaged file in `paths` order (of those seen) and its problem, if any.
    pub damaged: Option<(PathBuf, String)>,
}

/// Checks `paths` on up to `threads` threads, each reading whole files. A file that cannot be
/// read is an error (the start cannot vouch for it); a damaged one is reported, and the files
/// after it are not needed.
pub fn check_tables(paths: &[PathBuf], threads: usize) -> std::io::Result<TablesReport> {
    let next = AtomicUsize::new(0);
    let bytes = AtomicUsize::new(0);
    let damaged: Mutex<Option<(usize, String)>> = Mutex::new(None);
    let failed: Mutex<Option<std::io::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, paths.len().max(1)) {
            scope.spawn(|| loop {
                let position = next.fetch_add(1, Ordering::Relaxed);
                // A damaged file at an earlier position settles the answer; a later one does not,
                // since the answer is the first damaged file in order, as the twin finds it.
                let settled = matches!(*damaged.lock().expect("lock"), Some((seen, _)) if seen < position);
                if position >= paths.len() || settled || failed.lock().expect("lock").is_some() {
                    return;
                }
                match std::fs::read(&paths[position]) {
                    Err(error) => {
                        failed
                            .lock()
                            .expect("lock")
                            .get_or_insert(std::io::Error::new(error.kind(), format!("{}: {error}", paths[position].display())));
                    }
                    Ok(file) => {
                        bytes.fetch_add(file.len(), Ordering::Relaxed);
                        if let Err(problem) = check_table(&file) {
                            let mut first = damaged.lock().expect("lock");
                            if first.as_ref().is_none_or(|(seen, _)| position < *seen) {
                                *first = Some((position, problem));
                            }
                        }
                    }
                }
            });
        }
    });
    if let Some(error) = failed.into_inner().expect("lock") {
        return Err(error);
    }
    Ok(TablesReport {
        files: paths.len(),
        bytes: bytes.into_inner() as u64,
        damaged: damaged.into_inner().expect("lock").map(|(position, problem)| (paths[position].clone(), problem)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table files (`*.ldb`, `*.sst`, named by number) of a store directory, in name order (the
    /// server lists those its manifest holds: src/storage/leveldb-table-check.ts).
    fn table_files(directory: &std::path::Path) -> std::io::Result<Vec<PathBuf>> {
        let mut paths = Vec::new();
        for entry in std::fs::read_dir(directory)? {
            let entry = entry?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some((stem, extension)) = name.split_once('.') else { continue };
            if (extension == "ldb" || extension == "sst") && !stem.is_empty() && stem.bytes().all(|byte| byte.is_ascii_digit()) {
                paths.push(entry.path());
            }
        }
        paths.sort();
        Ok(paths)
    }

    /// A one-block table: `data` as its only data block, an empty metaindex, an index naming it.
    fn table(data: &[u8]) -> Vec<u8> {
        let mut file = Vec::new();
        let block = |file: &mut Vec<u8>, contents: &[u8]| -> Handle {
            let handle = Handle { offset: file.len() as u64, size: contents.len() as u64 };
            file.extend_from_slice(contents);
            let mut checked = contents.to_vec();
            checked.push(0);
            file.push(0);
            file.extend_from_slice(&masked(crc32c::crc32c(&checked)).to_le_bytes());
            handle
        };
        let data_handle = block(&mut file, data);
        // An empty block: no entries, one restart at 0.
        let metaindex = block(&mut file, &[0, 0, 0, 0, 1, 0, 0, 0]);
        let mut value = Vec::new();
        varint(&mut value, data_handle.offset);
        varint(&mut value, data_handle.size);
        let mut index = vec![0u8, 1, value.len() as u8, b'k'];
        index.extend_from_slice(&value);
        index.extend_from_slice(&[0, 0, 0, 0, 1, 0, 0, 0]);
        let index_handle = block(&mut file, &index);
        let mut footer = Vec::new();
        for handle in [metaindex, index_handle] {
            varint(&mut footer, handle.offset);
            varint(&mut footer, handle.size);
        }
        footer.resize(FOOTER_SIZE - 8, 0);
        footer.extend_from_slice(&TABLE_MAGIC.to_le_bytes());
        file.extend_from_slice(&footer);
        file
    }

    fn varint(output: &mut Vec<u8>, mut value: u64) {
        while value >= 0x80 {
            output.push((value as u8) | 0x80);
            value >>= 7;
        }
        output.push(value as u8);
    }

    #[test]
    fn a_table_whose_blocks_match_their_checksums_passes() {
        assert_eq!(check_table(&table(b"some data block bytes")), Ok(()));
    }

    #[test]
    fn any_flipped_byte_of_a_data_block_or_its_trailer_fails_with_the_block_named() {
        let intact = table(b"some data block bytes");
        for position in 0..b"some data block bytes".len() + TRAILER_SIZE {
            let mut damaged = intact.clone();
            damaged[position] ^= 0x10;
            assert_eq!(check_table(&damaged), Err("a data block at offset 0 fails its checksum".to_string()), "byte {position}");
        }
    }

    #[test]
    fn a_short_file_or_a_missing_magic_number_is_refused() {
        assert_eq!(check_table(&[0; 10]), Err("the file is too short (10 bytes) to be a table".to_string()));
        let mut file = table(b"x");
        let last = file.len() - 1;
        file[last] ^= 1;
        assert_eq!(check_table(&file), Err("the footer has no table magic number".to_string()));
    }

    #[test]
    fn snappy_literals_and_overlapping_copies_decompress() {
        // "abcabcabcabc": length 12, a 3-byte literal, then a copy of 9 at offset 3 (kind 2).
        let compressed = [12u8, (2 << 2), b'a', b'b', b'c', ((9 - 1) << 2) | 2, 3, 0];
        assert_eq!(snappy_decompress(&compressed).as_deref(), Ok(&b"abcabcabcabc"[..]));
        assert_eq!(
            snappy_decompress(&[12u8, (2 << 2), b'a', b'b', b'c', ((9 - 1) << 2) | 2, 4, 0]),
            Err("a compressed block has a bad back-reference".to_string())
        );
    }

    #[test]
    fn check_tables_reports_the_first_damaged_file_in_order_and_counts_every_byte() {
        let directory = std::env::temp_dir().join(format!("quiver-tables-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let intact = table(b"intact");
        let mut damaged = table(b"damaged");
        damaged[0] ^= 1;
        std::fs::write(directory.join("000001.ldb"), &intact).unwrap();
        std::fs::write(directory.join("000002.ldb"), &damaged).unwrap();
        std::fs::write(directory.join("000003.ldb"), &damaged).unwrap();
        std::fs::write(directory.join("LOG"), b"not a table").unwrap();
        let paths = table_files(&directory).unwrap();
        assert_eq!(paths.len(), 3);
        let report = check_tables(&paths, 2).unwrap();
        assert_eq!(report.damaged, Some((directory.join("000002.ldb"), "a data block at offset 0 fails its checksum".to_string())));
        let clean = check_tables(&paths[..1], 2).unwrap();
        assert_eq!(clean, TablesReport { files: 1, bytes: intact.len() as u64, damaged: None });
        std::fs::remove_dir_all(&directory).unwrap();
    }
}
