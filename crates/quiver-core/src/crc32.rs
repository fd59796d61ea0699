//! CRC-32 (IEEE 802.3, the zlib/PNG polynomial), table driven. Small enough to own rather than
//! pull a crate in for one checksum.

const POLYNOMIAL: u32 = 0xEDB8_8320;

const fn make_table() -> [[u32; 256]; 4] {
    let mut tables = [[0u32; 256]; 4];
    let mut index = 0;
    while index < 256 {
        let mut value = index as u32;
        let mut bit = 0;
        while bit < 8 {
            value = if value & 1 != 0 { (value >> 1) ^ POLYNOMIAL } else { value >> 1 };
            bit += 1;
        }
        tables[0][index] = value;
        index += 1;
    }
    // Slicing-by-4: tables[k][b] is the CRC of byte b followed by k zero bytes.
    let mut index = 0;
    while index < 256 {
        let mut k = 1;
        while k < 4 {
            let previous = tables[k - 1][index];
            tables[k][index] = (previous >> 8) ^ tables[0][(previous & 0xFF) as usize];
            k += 1;
        }
        index += 1;
    }
    tables
}

static TABLES: [[u32; 256]; 4] = make_table();

#[derive(Clone, Copy)]
pub struct Crc32 {
    state: u32,
}

impl Default for Crc32 {
    fn default() -> Self {
        Crc32::new()
    }
}

impl Crc32 {
    pub fn new() -> Crc32 {
        Crc32 { state: !0 }
    }

    pub fn update(&mut self, bytes: &[u8]) {
        let mut state = self.state;
        let mut chunks = bytes.chunks_exact(4);
        for chunk in &mut chunks {
            state ^= u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            state = TABLES[3][(state & 0xFF) as usize]
                ^ TABLES[2][((state >> 8) & 0xFF) as usize]
                ^ TABLES[1][((state >> 16) & 0xFF) as usize]
                ^ TABLES[0][(state >> 24) as usize];
        }
        for byte in chunks.remainder() {
            state = (state >> 8) ^ TABLES[0][((state ^ *byte as u32) & 0xFF) as usize];
        }
        self.state = state;
    }

    pub fn finish(&self) -> u32 {
        !self.state
    }

    pub fn of(bytes: &[u8]) -> u32 {
        let mut crc = Crc32::new();
        crc.update(bytes);
        crc.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::bitwise_crc;

    #[test]
    fn crc32_matches_the_standard_check_value() {
        assert_eq!(Crc32::of(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn sliced_crc32_matches_the_bitwise_twin_across_chunk_boundaries() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i.wrapping_mul(31) ^ (i >> 3)) as u8).collect();
        for length in [0, 1, 3, 4, 5, 17, 1000] {
            let mut split = Crc32::new();
            split.update(&data[..length / 2]);
            split.update(&data[length / 2..length]);
            assert_eq!(split.finish(), bitwise_crc(&data[..length], POLYNOMIAL), "length {length}");
        }
    }
}
