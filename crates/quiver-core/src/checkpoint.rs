//! Checkpoint files: the whole index (vectors, tombstones, graph) in one file. This module is
//! the container (encoding, checksum, atomic write, verified read); index/persist.rs decides
//! what the index writes into it and hnsw/persist.rs writes the graph section.
//!
//! Layout (little endian), format version 3 (versions 1 and 2 are still read: 1 has no binding,
//! neither has the datatype byte, so both load as float32):
//!   magic "QUIVERIX" | u32 version | binding (version 2+: u16 length + UTF-8 bytes) | u32 dimension | u8 metric |
//!   u8 datatype (version 3: 0 float32, 1 float16, 2 uint8; rows are still written as f32) | u32 m | u32 ef_construct |
//!   u32 full_scan_threshold | u32 indexing_threads | u64 last_operation_id | u32 slot_bound |
//!   per slot: u8 state (0 empty, 1 live, 2 deleted) [+ dimension f32 when not empty] |
//!   graph section (see hnsw::Graph::write_to) | u32 CRC-32 of every byte before it.
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
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub const MAGIC: &[u8; 8] = b"QUIVERIX";
pub const FORMAT_VERSION: u32 = 3;
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

/// A writer that checksums everything it passes on.
pub struct Encoder<W: Write> {
    inner: W,
    crc: Crc32,
}

impl<W: Write> Encoder<W> {
    pub fn new(inner: W) -> Encoder<W> {
        Encoder { inner, crc: Crc32::new() }
    }

    pub fn bytes(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.crc.update(bytes);
        self.inner.write_all(bytes)
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

    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.position
    }
}

/// Reads a checkpoint file and returns its body (everything before the checksum) and its format
/// version once the magic, version and checksum check out. A file that does not exist is
/// CHECKPOINT_MISSING, apart from other read failures (IO_ERROR), so recovery can tell "never
/// saved" from damage.
pub fn read_verified(path: &Path) -> KernelResult<(Vec<u8>, u32)> {
    read_verified_as(path, MAGIC, OLDEST_FORMAT_VERSION..=FORMAT_VERSION)
}

/// Writes a checkpoint atomically: `write` fills a temporary file beside `path`, which is then
/// fsynced, renamed over `path`, and the directory fsynced.
pub fn write_atomically(path: &Path, write: impl FnOnce(&mut Encoder<BufWriter<File>>) -> std::io::Result<()>) -> KernelResult<()> {
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path.file_name().ok_or_else(|| KernelError::invalid(format!("{} names no file", path.display())))?;
    let temporary = directory.join(format!(".{}.tmp-{}", file_name.to_string_lossy(), std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let file = File::create(&temporary)?;
        let mut encoder = Encoder::new(BufWriter::with_capacity(1 << 20, file));
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
    let (bytes, version) = read_verified_bytes(path, magic, versions)?;
    Ok((bytes.to_vec(), version))
}

/// `read_verified` through a read-only mapping of the file (mapped.rs `FileBytes`) instead of a
/// heap copy: the dense loader parses from the page cache, so a large (`on_disk`) index does not
/// hold its whole checkpoint in anonymous memory while it loads (docs/architecture.md §15).
pub fn read_verified_mapped(path: &Path) -> KernelResult<(FileBytes, u32)> {
    read_verified_bytes(path, MAGIC, OLDEST_FORMAT_VERSION..=FORMAT_VERSION)
}

fn read_verified_bytes(path: &Path, magic: &[u8; 8], versions: std::ops::RangeInclusive<u32>) -> KernelResult<(FileBytes, u32)> {
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
    let actual = Crc32::of(&bytes[..body_length]);
    if stored != actual {
        return Err(KernelError::corrupt(format!("{} fails its checksum (stored {stored:08x}, computed {actual:08x})", path.display())));
    }
    bytes.truncate(body_length);
    Ok((bytes, version))
}
