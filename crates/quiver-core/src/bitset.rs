//! The allowed-slot filter as the caller passes it: a little-endian bitset over slots (bit
//! `slot % 8` of byte `slot >> 3`); slots past its end are not allowed.

#[derive(Clone, Copy, Debug)]
pub struct AllowedSlots<'a> {
    bytes: &'a [u8],
}

impl<'a> AllowedSlots<'a> {
    pub fn new(bytes: &'a [u8]) -> AllowedSlots<'a> {
        AllowedSlots { bytes }
    }

    #[inline(always)]
    pub fn contains(&self, slot: u32) -> bool {
        let byte = (slot >> 3) as usize;
        byte < self.bytes.len() && (self.bytes[byte] >> (slot & 7)) & 1 == 1
    }

    pub fn count(&self) -> usize {
        self.bytes.iter().map(|byte| byte.count_ones() as usize).sum()
    }

    /// Allowed slots in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.bytes.iter().enumerate().flat_map(|(index, byte)| {
            let byte = *byte;
            (0..8u32).filter(move |bit| (byte >> bit) & 1 == 1).map(move |bit| (index as u32) * 8 + bit)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_slots_read_little_endian_bits_and_refuse_past_the_end() {
        let bytes = [0b0000_0101u8, 0b1000_0000];
        let allowed = AllowedSlots::new(&bytes);
        assert!(allowed.contains(0) && allowed.contains(2) && allowed.contains(15));
        assert!(!allowed.contains(1) && !allowed.contains(16) && !allowed.contains(u32::MAX));
        assert_eq!(allowed.count(), 3);
        assert_eq!(allowed.iter().collect::<Vec<_>>(), vec![0, 2, 15]);
    }
}
