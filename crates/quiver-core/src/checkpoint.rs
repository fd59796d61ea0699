//! Checkpoint files: the whole index (vectors, tombstones, graph) in one file. This module is
//! the container (encoding, checksum, atomic write, verified read); index/persist.rs decides
//! what the index writes into it and hnsw/persist.rs writes the graph section.
//!
//! Layout (little endian), format version 5 (versions 1 to 4 are still read: 1 has no binding,
//! neither 1 nor 2 has the datatype byte, so both load as float32; 1 to 3 end in a CRC-32):
//!   magic "QUIVERIX" | u32 version | binding (version 2+: u16 length + UTF-8 bytes) | u32 dimension | u8 metric |
//!   u8 datatype (version 3+: 0 float32, 1 float16, 2 uint8) | u32 m | u32 ef_construct |
//!   u32 full_scan_threshold | u32 indexing_threads | u64 last_operation_id | u32 slot_bound |
//!   rows, version 5: slot_bound × u8 state (0 empty, 1 live, 2 deleted), zeros up to a multiple
//!     of ROW_BLOCK_ALIGNMENT from the file's start, then slot_bound rows of dimension values in
//!     the datatype's own element type (f32, f16 bits, u8), slot order, an empty slot's row zero;
//!   rows, versions 1 to 4: per slot u8 state [+ dimension f32 when not empty] |
//!   graph section (see hnsw::Graph::write_to) | u32 checksum of every byte before it: CRC-32C
//!   (Castagnoli) from version 4, CRC-32 (IEEE) before.
//! Version 4 changed only the checksum: CRC-32C has a CPU instruction (SSE 4.2, ARMv8 CRC), so
//! verifying a whole checkpoint at start-up runs at memory speed instead of ~1 GB/s for the
//! table-driven CRC-32 (docs/architecture.md §21). Version 5 gathered the rows into one aligned
//! block, so an `on_disk` index reads them where they are instead of copying every row into
//! its working files at load (docs/architecture.md §15).
//! Written to a temporary file, fsynced, renamed over the target, then the directory is
//! fsynced, so a crash leaves either the old file or the new one. On load the checksum is
//! verified before anything is parsed: a corrupt or truncated file is refused, never loaded.
//!
//! The binding names the database and collection incarnation the checkpoint was made from
//! (docs/durability.md): the kernel only stores and returns it, the caller compares it, so a
//! checkpoint left behind by another store or an earlier collection of the same number is never
//! loaded as this one's. A version 1 file returns an empty binding (unbound).

use crate::crc32::Crc32;
use crate::error::{ErrorCode, KernelError, KernelResult};
use crate::mapped::FileBytes;
use crc32c::crc32c_append;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub const MAGIC: &[u8; 8] = b"QUIVERIX";
pub const FORMAT_VERSION: u32 = 5;
/// The first dense format version whose rows are one aligned block after the slot states (in
/// the element type, readable in place); earlier ones interleave a state byte and f32 values.
pub const ROW_BLOCK_FROM_VERSION: u32 = 5;
/// Where a version 5 row block starts: a multiple of this many bytes from the file's start, so
/// a mapping of the file (page aligned) holds it on a page boundary.
pub const ROW_BLOCK_ALIGNMENT: u64 = 4096;
/// The first dense format version whose trailer is a CRC-32C; earlier ones end in a CRC-32.
pub const CASTAGNOLI_FROM_VERSION: u32 = 4;

/// Which CRC a file's trailer holds (chosen by its kind and format version).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checksum {
    /// CRC-32 (IEEE 802.3), table driven: crc32.rs. Sparse checkpoints and dense ones before version 4.
    Ieee,
    /// CRC-32C (Castagnoli), with the CPU's instruction where it has one (the `crc32c` crate).
    Castagnoli,
}

impl Checksum {
    /// The checksum of a dense checkpoint (`QUIVERIX`) of `version`.
    pub fn of_dense_version(version: u32) -> Checksum {
        if version >= CASTAGNOLI_FROM_VERSION {
            Checksum::Castagnoli
        } else {
            Checksum::Ieee
        }
    }

    /// The checksum of `bytes`.
    pub fn of(self, bytes: &[u8]) -> u32 {
        let mut running = Running::new(self);
        running.update(bytes);
        running.finish()
    }
}

/// A checksum being computed over bytes passed in pieces.
#[derive(Clone, Copy)]
enum Running {
    Ieee(Crc32),
    Castagnoli(u32),
}

impl Running {
    fn new(checksum: Checksum) -> Running {
        match checksum {
            Checksum::Ieee => Running::Ieee(Crc32::new()),
            Checksum::Castagnoli => Running::Castagnoli(0),
        }
    }

    fn update(&mut self, bytes: &[u8]) {
        match self {
            Running::Ieee(crc) => crc.update(bytes),
            Running::Castagnoli(crc) => *crc = crc32c_append(*crc, bytes),
        }
    }

    fn finish(&self) -> u32 {
        match self {
            Running::Ieee(crc) => crc.finish(),
            Running::Castagnoli(crc) => *crc,
        }
    }
}
/// The oldest format version this build still reads (version 1: no binding).
pub const OLDEST_FORMAT_VERSION: u32 = 1;
/// Longest binding a checkpoint may carry; a longer one is refused on write and is corruption on read.
pub const MAX_BINDING_BYTES: usize = 256;

/// Writes the binding section of a version 2 header.
pub fn write_binding<W: Write>(encoder: &mut Encoder<W>, binding: &str) -> std::io::Result<()> {
    encoder.u16(binding.len() as u16)?;
    encoder.bytes(binding.as_bytes())
}

/// Reads the binding section of a header of `version` (empty for version 1, which has none).
pub fn read_binding(decoder: &mut Decoder, version: u32) -> KernelResult<String> {
    if version < 2 {
        return Ok(String::new());
    }
    let length = decoder.u16()? as usize;
    if length > MAX_BINDING_BYTES {
        return Err(KernelError::corrupt(format!("a binding of {length} bytes is longer than {MAX_BINDING_BYTES}")));
    }
    let bytes = decoder.take(length)?;
    String::from_utf8(bytes.to_vec()).map_err(|_| KernelError::corrupt("the binding is not UTF-8".to_string()))
}

/// Refuses a binding that would not fit its header section.
pub fn check_binding(binding: &str) -> KernelResult<()> {
    if binding.len() > MAX_BINDING_BYTES {
        return Err(KernelError::invalid(format!("a checkpoint binding is at most {MAX_BINDING_BYTES} bytes, got {}", binding.len())));
    }
    Ok(())
}

/// How many bytes from `offset` to the next multiple of `alignment` (0 if it is one).
fn padding_after(offset: u64, alignment: u64) -> u64 {
    (alignment - offset % alignment) % alignment
}

/// A writer that checksums everything it passes on.
pub struct Encoder<W: Write> {
    inner: W,
    crc: Running,
    /// Bytes written so far (the file offset of the next byte), for `pad_to`.
    written: u64,
}

impl<W: Write> Encoder<W> {
    /// An encoder whose trailer is a CRC-32 (the sparse checkpoint's, sparse/persist.rs).
    pub fn new(inner: W) -> Encoder<W> {
        Encoder::with_checksum(inner, Checksum::Ieee)
    }

    pub fn with_checksum(inner: W, checksum: Checksum) -> Encoder<W> {
        Encoder { inner, crc: Running::new(checksum), written: 0 }
    }

    pub fn bytes(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.crc.update(bytes);
        self.written += bytes.len() as u64;
        self.inner.write_all(bytes)
    }

    /// Zero bytes up to the next multiple of `alignment` from the file's start
    /// (`Decoder::skip_padding_to` reads past them).
    pub fn pad_to(&mut self, alignment: u64) -> std::io::Result<()> {
        self.bytes(&vec![0u8; padding_after(self.written, alignment) as usize])
    }

    pub fn u8(&mut self, value: u8) -> std::io::Result<()> {
        self.bytes(&[value])
    }

    pub fn u16(&mut self, value: u16) -> std::io::Result<()> {
        self.bytes(&value.to_le_bytes())
    }

    pub fn u32(&mut self, value: u32) -> std::io::Result<()> {
        self.bytes(&value.to_le_bytes())
    }

    pub fn u64(&mut self, value: u64) -> std::io::Result<()> {
        self.bytes(&value.to_le_bytes())
    }

    pub fn f32s(&mut self, values: &[f32]) -> std::io::Result<()> {
        // Bounded stack buffer: vectors go out in pieces, never as one big copy.
        let mut buffer = [0u8; 4096];
        for chunk in values.chunks(buffer.len() / 4) {
            for (index, value) in chunk.iter().enumerate() {
                buffer[index * 4..index * 4 + 4].copy_from_slice(&value.to_le_bytes());
            }
            self.bytes(&buffer[..chunk.len() * 4])?;
        }
        Ok(())
    }

    /// Appends the checksum and returns the inner writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        let checksum = self.crc.finish();
        self.inner.write_all(&checksum.to_le_bytes())?;
        Ok(self.inner)
    }
}

/// A bounds-checked reader over a verified byte image; running off the end is corruption.
pub struct Decoder<'a> {
    bytes: &'a [u8],
    position: usize,
}

impl<'a> Decoder<'a> {
    pub fn new(bytes: &'a [u8]) -> Decoder<'a> {
        Decoder { bytes, position: 0 }
    }

    pub fn take(&mut self, length: usize) -> KernelResult<&'a [u8]> {
        let end = self.position.checked_add(length).filter(|end| *end <= self.bytes.len());
        let Some(end) = end else {
            return Err(KernelError::corrupt(format!("record at byte {} runs past the end of the file", self.position)));
        };
        let slice = &self.bytes[self.position..end];
        self.position = end;
        Ok(slice)
    }

    pub fn u8(&mut self) -> KernelResult<u8> {
        Ok(self.take(1)?[0])
    }

    pub fn u16(&mut self) -> KernelResult<u16> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().unwrap()))
    }

    pub fn u32(&mut self) -> KernelResult<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }

    pub fn u64(&mut self) -> KernelResult<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }

    pub fn f32s(&mut self, output: &mut [f32]) -> KernelResult<()> {
        let bytes = self.take(output.len() * 4)?;
        for (value, chunk) in output.iter_mut().zip(bytes.chunks_exact(4)) {
            *value = f32::from_le_bytes(chunk.try_into().unwrap());
        }
        Ok(())
    }

    pub fn position(&self) -> usize {
        self.position
    }

    /// Skips the zero bytes `Encoder::pad_to` wrote to reach a multiple of `alignment`.
    pub fn skip_padding_to(&mut self, alignment: u64) -> KernelResult<()> {
        self.take(padding_after(self.position as u64, alignment) as usize).map(|_| ())
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.position
    }
}

/// Reads a checkpoint file and returns its body (everything before the checksum) and its format
/// version once the magic, version and checksum check out. A file that does not exist is
/// CHECKPOINT_MISSING, apart from other read failures (IO_ERROR), so recovery can tell "never
/// saved" from damage.
pub fn read_verified(path: &Path) -> KernelResult<(Vec<u8>, u32)> {
    let (bytes, version) = read_verified_bytes(path, MAGIC, OLDEST_FORMAT_VERSION..=FORMAT_VERSION, Checksum::of_dense_version)?;
    Ok((bytes.to_vec(), version))
}

/// Writes a checkpoint atomically: `write` fills a temporary file beside `path`, which is then
/// fsynced, renamed over `path`, and the directory fsynced. The trailer is a CRC-32.
pub fn write_atomically(path: &Path, write: impl FnOnce(&mut Encoder<BufWriter<File>>) -> std::io::Result<()>) -> KernelResult<()> {
    write_atomically_with(path, Checksum::Ieee, write)
}

/// `write_atomically` with the trailer `checksum` (a dense checkpoint of version 4: CRC-32C).
pub fn write_atomically_with(
    path: &Path,
    checksum: Checksum,
    write: impl FnOnce(&mut Encoder<BufWriter<File>>) -> std::io::Result<()>,
) -> KernelResult<()> {
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path.file_name().ok_or_else(|| KernelError::invalid(format!("{} names no file", path.display())))?;
    let temporary = directory.join(format!(".{}.tmp-{}", file_name.to_string_lossy(), std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let file = File::create(&temporary)?;
        let mut encoder = Encoder::with_checksum(BufWriter::with_capacity(1 << 20, file), checksum);
        write(&mut encoder)?;
        let file = encoder.finish()?.into_inner().map_err(|error| error.into_error())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temporary, path)?;
        // The rename is durable only once the directory entry is.
        File::open(&directory)?.sync_all()?;
        Ok(())
    })();
    if let Err(error) = result {
        let _ = fs::remove_file(&temporary);
        return Err(KernelError::io(&format!("writing checkpoint {}", path.display()), error));
    }
    Ok(())
}

/// `read_verified` for a file kind with its own magic and format version (the sparse index's
/// checkpoint, sparse/persist.rs): the same checks in the same order.
pub fn read_verified_as(path: &Path, magic: &[u8; 8], versions: std::ops::RangeInclusive<u32>) -> KernelResult<(Vec<u8>, u32)> {
    let (bytes, version) = read_verified_bytes(path, magic, versions, |_| Checksum::Ieee)?;
    Ok((bytes.to_vec(), version))
}

/// `read_verified` through a read-only mapping of the file (mapped.rs `FileBytes`) instead of a
/// heap copy: the dense loader parses from the page cache, so a large (`on_disk`) index does not
/// hold its whole checkpoint in anonymous memory while it loads (docs/architecture.md §15).
pub fn read_verified_mapped(path: &Path) -> KernelResult<(FileBytes, u32)> {
    read_verified_bytes(path, MAGIC, OLDEST_FORMAT_VERSION..=FORMAT_VERSION, Checksum::of_dense_version)
}

/// How much of a checkpoint the checksum pass reads before giving those pages back.
const VERIFY_WINDOW_BYTES: usize = 32 << 20;

fn read_verified_bytes(
    path: &Path,
    magic: &[u8; 8],
    versions: std::ops::RangeInclusive<u32>,
    checksum_of_version: fn(u32) -> Checksum,
) -> KernelResult<(FileBytes, u32)> {
    let read_error = |error: std::io::Error| match error.kind() {
        std::io::ErrorKind::NotFound => KernelError::new(ErrorCode::CheckpointMissing, format!("{} does not exist", path.display())),
        _ => KernelError::io(&format!("reading {}", path.display()), error),
    };
    let file = File::open(path).map_err(read_error)?;
    let length = file.metadata().map_err(read_error)?.len() as usize;
    let mut bytes = FileBytes::open(&file, length).map_err(read_error)?;
    if bytes.len() < magic.len() + 4 + 4 {
        return Err(KernelError::corrupt(format!("{} is too short ({} bytes) to be a checkpoint", path.display(), bytes.len())));
    }
    if &bytes[..magic.len()] != magic {
        return Err(KernelError::corrupt(format!("{} is not a QuiverDB checkpoint of this kind (bad magic number)", path.display())));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    if !versions.contains(&version) {
        return Err(KernelError::new(
            ErrorCode::CheckpointVersion,
            format!(
                "{} has format version {version}; this build reads versions {} to {}",
                path.display(),
                versions.start(),
                versions.end()
            ),
        ));
    }
    let body_length = bytes.len() - 4;
    let stored = u32::from_le_bytes(bytes[body_length..].try_into().unwrap());
    // In windows, giving each back once summed: the loader reads the file again from its start,
    // and a whole checkpoint held resident at once is what the release is there to avoid.
    let mut running = Running::new(checksum_of_version(version));
    for start in (0..body_length).step_by(VERIFY_WINDOW_BYTES) {
        let end = (start + VERIFY_WINDOW_BYTES).min(body_length);
        running.update(&bytes[start..end]);
        bytes.release(start..end);
    }
    let actual = running.finish();
    if stored != actual {
        return Err(KernelError::corrupt(format!("{} fails its checksum (stored {stored:08x}, computed {actual:08x})", path.display())));
    }
    bytes.truncate(body_length);
    Ok((bytes, version))
}

#[cfg(test)]
mod tests {
    use super::Checksum;
    use crate::test_support::{bitwise_crc, Random};

    #[test]
    fn castagnoli_matches_its_bitwise_twin_on_random_inputs_of_every_small_and_odd_length() {
        assert_eq!(Checksum::Castagnoli.of(b"123456789"), 0xE306_9283);
        assert_eq!(Checksum::Ieee.of(b"123456789"), 0xCBF4_3926);
        let mut random = Random::new(5);
        let bytes: Vec<u8> = (0..5010).map(|_| random.next_u64() as u8).collect();
        for length in (0..70).chain([255, 1023, 4097, 4999]) {
            for start in [0, 1, 3] {
                let piece = &bytes[start..start + length];
                assert_eq!(Checksum::Castagnoli.of(piece), bitwise_crc(piece, 0x82F6_3B78), "length {length} from {start}");
            }
        }
    }
}
