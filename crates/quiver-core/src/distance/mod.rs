//! Distance kernels: a scalar reference for each primitive and SIMD versions chosen once per
//! index (`Space::new`), so the hot loop calls a stored function pointer and pays no feature
//! check per call.
//!
//! Inside the kernel every metric is a distance where smaller is better (Cosine/Dot: the
//! negated dot product, Euclid: the squared L2 distance, Manhattan: L1); `Space::score` turns
//! it into the wire convention of docs/api.md §4.4 once per returned hit.

pub mod compact;
pub mod row;
pub mod scalar;

#[cfg(target_arch = "x86_64")]
mod x86;
#[cfg(target_arch = "x86_64")]
mod x86_compact;

#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg(target_arch = "aarch64")]
mod neon_compact;

pub use compact::CompactKernels;
pub use row::{Datatype, Row};

/// A kernel over two equal-length slices.
pub type Kernel = fn(&[f32], &[f32]) -> f32;

/// A kernel scoring one query against four rows of its length in one pass.
pub type Kernel4 = fn(&[f32], [&[f32]; 4]) -> [f32; 4];

/// One set of primitive kernels for an instruction set.
#[derive(Clone, Copy)]
pub struct Kernels {
    pub dot: Kernel,
    pub l2_squared: Kernel,
    pub l1: Kernel,
}

pub const SCALAR: Kernels = Kernels { dot: scalar::dot, l2_squared: scalar::l2_squared, l1: scalar::l1 };

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Cosine,
    Dot,
    Euclid,
    Manhattan,
}

impl Metric {
    pub fn parse(name: &str) -> Option<Metric> {
        match name {
            "Cosine" => Some(Metric::Cosine),
            "Dot" => Some(Metric::Dot),
            "Euclid" => Some(Metric::Euclid),
            "Manhattan" => Some(Metric::Manhattan),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Metric::Cosine => "Cosine",
            Metric::Dot => "Dot",
            Metric::Euclid => "Euclid",
            Metric::Manhattan => "Manhattan",
        }
    }

    /// Stable number used in checkpoints.
    pub fn code(self) -> u8 {
        match self {
            Metric::Cosine => 1,
            Metric::Dot => 2,
            Metric::Euclid => 3,
            Metric::Manhattan => 4,
        }
    }

    pub fn from_code(code: u8) -> Option<Metric> {
        match code {
            1 => Some(Metric::Cosine),
            2 => Some(Metric::Dot),
            3 => Some(Metric::Euclid),
            4 => Some(Metric::Manhattan),
            _ => None,
        }
    }
}

/// Instruction sets a kernel can be built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstructionSet {
    Scalar,
    Avx2Fma,
    Avx512,
    Neon,
}

impl InstructionSet {
    pub fn name(self) -> &'static str {
        match self {
            InstructionSet::Scalar => "scalar",
            InstructionSet::Avx2Fma => "avx2+fma",
            InstructionSet::Avx512 => "avx512f",
            InstructionSet::Neon => "neon",
        }
    }

    /// The best instruction set this CPU supports.
    pub fn detect() -> InstructionSet {
        available().last().copied().unwrap_or(InstructionSet::Scalar)
    }

    /// The kernels for this instruction set, or None when the CPU lacks it.
    pub fn kernels(self) -> Option<Kernels> {
        match self {
            InstructionSet::Scalar => Some(SCALAR),
            #[cfg(target_arch = "x86_64")]
            InstructionSet::Avx2Fma => x86::avx2_available().then_some(x86::AVX2),
            #[cfg(target_arch = "x86_64")]
            InstructionSet::Avx512 => x86::avx512_available().then_some(x86::AVX512),
            #[cfg(target_arch = "aarch64")]
            InstructionSet::Neon => Some(neon::NEON),
            _ => None,
        }
    }

    /// The float16 / uint8 kernels for this instruction set (compact.rs); the scalar twins
    /// where it has none of its own. Only asked of a set `kernels` accepted.
    pub fn compact_kernels(self) -> CompactKernels {
        match self {
            #[cfg(target_arch = "x86_64")]
            InstructionSet::Avx512 if x86_compact::avx512_available() => x86_compact::AVX512,
            #[cfg(target_arch = "x86_64")]
            InstructionSet::Avx2Fma | InstructionSet::Avx512 if x86_compact::available() => x86_compact::AVX2,
            #[cfg(target_arch = "aarch64")]
            InstructionSet::Neon => neon_compact::NEON,
            _ => compact::SCALAR,
        }
    }
}

/// Every instruction set usable on this CPU, slowest first.
pub fn available() -> Vec<InstructionSet> {
    [InstructionSet::Scalar, InstructionSet::Neon, InstructionSet::Avx2Fma, InstructionSet::Avx512]
        .into_iter()
        .filter(|set| set.kernels().is_some())
        .collect()
}

/// Name of the instruction set the kernel picks on this CPU, for logs and benchmarks.
pub fn instruction_set() -> &'static str {
    InstructionSet::detect().name()
}

/// The fastest dot-product kernel this CPU supports.
pub fn dot_kernel() -> Kernel {
    InstructionSet::detect().kernels().unwrap_or(SCALAR).dot
}

/// A metric bound to the kernel that computes it: resolved once, copied into each index.
#[derive(Clone, Copy)]
pub struct Space {
    pub metric: Metric,
    kernel: Kernel,
    /// `kernel` over four float32 rows at once, where the instruction set has one (AVX2,
    /// AVX-512) and the metric uses it (not Manhattan); otherwise `distance4` scores one row at
    /// a time.
    kernel4: Option<Kernel4>,
    l2_kernel4: Option<Kernel4>,
    negate: bool,
    l2_kernel: Kernel,
    /// The same metric for float16 and uint8 rows (compact.rs), and their L2 for `link_space`.
    half_kernel: compact::HalfKernel,
    byte_kernel: compact::ByteKernel,
    compact: CompactKernels,
}

/// The four-row kernels (dot, squared L2) of an instruction set, where it has them.
fn batch_kernels(set: InstructionSet) -> (Option<Kernel4>, Option<Kernel4>) {
    match set {
        #[cfg(target_arch = "x86_64")]
        InstructionSet::Avx2Fma if x86::avx2_available() => (Some(x86::dot4_avx2 as Kernel4), Some(x86::l2_squared4_avx2 as Kernel4)),
        #[cfg(target_arch = "x86_64")]
        InstructionSet::Avx512 if x86::avx512_available() => (Some(x86::dot4_avx512 as Kernel4), Some(x86::l2_squared4_avx512 as Kernel4)),
        _ => (None, None),
    }
}

impl Space {
    pub fn new(metric: Metric) -> Space {
        Space::with_instruction_set(metric, InstructionSet::detect())
    }

    pub fn with_instruction_set(metric: Metric, set: InstructionSet) -> Space {
        let kernels = set.kernels().unwrap_or(SCALAR);
        let compact = if set.kernels().is_some() { set.compact_kernels() } else { compact::SCALAR };
        let (kernel, half_kernel, byte_kernel, negate) = match metric {
            Metric::Cosine => (kernels.dot, compact.dot_f16, compact.cosine_u8, true),
            Metric::Dot => (kernels.dot, compact.dot_f16, compact.dot_u8, true),
            Metric::Euclid => (kernels.l2_squared, compact.l2_squared_f16, compact.l2_squared_u8, false),
            Metric::Manhattan => (kernels.l1, compact.l1_f16, compact.l1_u8, false),
        };
        let (dot4, l2_squared4) = batch_kernels(set);
        let kernel4 = match metric {
            Metric::Cosine | Metric::Dot => dot4,
            Metric::Euclid => l2_squared4,
            Metric::Manhattan => None,
        };
        Space { metric, kernel, kernel4, l2_kernel4: l2_squared4, negate, l2_kernel: kernels.l2_squared, half_kernel, byte_kernel, compact }
    }

    /// The space the graph is linked in. Inner product is no metric (a vector is not its own
    /// nearest neighbour, long vectors crowd every list), so for Dot the graph is linked by L2
    /// distance, which keeps it navigable, and searched by dot product.
    pub fn link_space(&self) -> Space {
        match self.metric {
            Metric::Dot => Space {
                metric: Metric::Euclid,
                kernel: self.l2_kernel,
                kernel4: self.l2_kernel4,
                negate: false,
                half_kernel: self.compact.l2_squared_f16,
                byte_kernel: self.compact.l2_squared_u8,
                ..*self
            },
            _ => *self,
        }
    }

    /// A stored row's values as float32, decoded by this space's kernels (exact for every
    /// element type): `output` holds `row.len()` values.
    #[inline]
    pub fn decode_into(&self, row: Row<'_>, output: &mut [f32]) {
        row.decode_into_with(self.compact.decode_f16, output);
    }

    /// `decode_into` a new vector.
    pub fn decode(&self, row: Row<'_>) -> Vec<f32> {
        let mut output = vec![0f32; row.len()];
        self.decode_into(row, &mut output);
        output
    }

    /// Internal distance: smaller is better for every metric.
    /// `left` is a prepared float32 query; `right` a float32 slice or a stored row of any
    /// element type (a float32 slice resolves to the float32 kernel at compile time).
    #[inline(always)]
    pub fn distance<'a>(&self, left: &[f32], right: impl Into<Row<'a>>) -> f32 {
        let value = match right.into() {
            Row::F32(right) => (self.kernel)(left, right),
            Row::F16(right) => (self.half_kernel)(left, right),
            Row::U8(right) => (self.byte_kernel)(left, right),
        };
        if self.negate {
            -value
        } else {
            value
        }
    }

    /// `distance` from `left` to four rows, bit for bit the same values: in one pass of the
    /// batch kernel when all four are float32 rows and the set has one, else one by one.
    #[inline(always)]
    pub fn distance4(&self, left: &[f32], rows: [Row<'_>; 4]) -> [f32; 4] {
        if let (Some(kernel4), [Row::F32(a), Row::F32(b), Row::F32(c), Row::F32(d)]) = (self.kernel4, rows) {
            let values = kernel4(left, [a, b, c, d]);
            return if self.negate { values.map(|value| -value) } else { values };
        }
        rows.map(|row| self.distance(left, row))
    }

    /// The wire score (docs/api.md §4.4): similarity for Cosine/Dot, L2 / L1 distance otherwise.
    #[inline]
    pub fn score(&self, distance: f32) -> f32 {
        match self.metric {
            Metric::Cosine | Metric::Dot => -distance,
            Metric::Euclid => distance.max(0.0).sqrt(),
            Metric::Manhattan => distance,
        }
    }

    /// Cosine vectors are stored and queried unit-length; other metrics keep them as given.
    /// A zero vector stays zero (its cosine with anything is 0), never NaN.
    pub fn prepare(&self, vector: &mut [f32]) {
        if self.metric != Metric::Cosine {
            return;
        }
        let norm = scalar::dot(vector, vector).sqrt();
        if norm > 0.0 && norm.is_finite() {
            let inverse = 1.0 / norm;
            for value in vector.iter_mut() {
                *value *= inverse;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LENGTHS: [usize; 9] = [1, 3, 7, 15, 16, 17, 31, 100, 1536];

    fn sample(length: usize, seed: u32) -> Vec<f32> {
        (0..length)
            .map(|i| (((i as u32).wrapping_mul(2654435761).wrapping_add(seed.wrapping_mul(40503))) % 1000) as f32 / 500.0 - 1.0)
            .collect()
    }

    fn close(expected: f32, actual: f32) -> bool {
        (expected - actual).abs() <= 1e-4 * (1.0 + expected.abs())
    }

    #[test]
    fn every_simd_kernel_matches_scalar_on_awkward_lengths() {
        let sets = available();
        assert!(sets.contains(&InstructionSet::Scalar));
        // Only sets this CPU has can run; say which, so a run on a machine without AVX-512 or
        // NEON is not mistaken for coverage of those kernels.
        eprintln!("SIMD kernels checked against scalar here: {:?}", sets.iter().map(|set| set.name()).collect::<Vec<_>>());
        for set in sets {
            let kernels = set.kernels().unwrap();
            for length in LENGTHS {
                let (a, b) = (sample(length, 1), sample(length, 7));
                for (name, reference, candidate) in [
                    ("dot", scalar::dot as Kernel, kernels.dot),
                    ("l2_squared", scalar::l2_squared as Kernel, kernels.l2_squared),
                    ("l1", scalar::l1 as Kernel, kernels.l1),
                ] {
                    let (expected, actual) = (reference(&a, &b), candidate(&a, &b));
                    assert!(close(expected, actual), "{} {name} length {length}: {expected} vs {actual}", set.name());
                }
            }
        }
    }

    #[test]
    fn four_row_kernels_give_each_row_exactly_what_the_one_row_kernel_gives() {
        for set in available() {
            let (Some(dot4), Some(l2_squared4)) = batch_kernels(set) else { continue };
            let kernels = set.kernels().unwrap();
            for length in LENGTHS {
                let query = sample(length, 1);
                let rows: Vec<Vec<f32>> = (0..4).map(|row| sample(length, 11 + row)).collect();
                let borrowed = [&rows[0][..], &rows[1][..], &rows[2][..], &rows[3][..]];
                for (name, one, four, reference) in [
                    ("dot", kernels.dot, dot4, scalar::dot as Kernel),
                    ("l2_squared", kernels.l2_squared, l2_squared4, scalar::l2_squared as Kernel),
                ] {
                    let batch = four(&query, borrowed);
                    for (row, value) in borrowed.iter().zip(batch) {
                        assert_eq!(value.to_bits(), one(&query, row).to_bits(), "{} {name}4 length {length}", set.name());
                        assert!(close(reference(&query, row), value), "{} {name}4 length {length} against scalar", set.name());
                    }
                }
            }
        }
        // Through a Space, for every metric and its link space: the same as four single calls.
        let query = sample(100, 2);
        let rows: Vec<Vec<f32>> = (0..4).map(|row| sample(100, 21 + row)).collect();
        for metric in [Metric::Cosine, Metric::Dot, Metric::Euclid, Metric::Manhattan] {
            for space in [Space::new(metric), Space::new(metric).link_space()] {
                let batch = space.distance4(&query, [Row::F32(&rows[0]), Row::F32(&rows[1]), Row::F32(&rows[2]), Row::F32(&rows[3])]);
                for (row, value) in rows.iter().zip(batch) {
                    assert_eq!(value.to_bits(), space.distance(&query, &row[..]).to_bits(), "{metric:?}");
                }
            }
        }
    }

    #[test]
    fn simd_kernels_read_only_their_slice_inside_a_larger_buffer() {
        // Poison around the slice: a kernel reading past its end would pick it up.
        let mut buffer = vec![1e9f32; 64];
        for (offset, value) in sample(17, 3).into_iter().enumerate() {
            buffer[5 + offset] = value;
        }
        let other = sample(17, 9);
        for set in available() {
            let kernels = set.kernels().unwrap();
            let expected = scalar::dot(&buffer[5..22], &other);
            assert!(close(expected, (kernels.dot)(&buffer[5..22], &other)), "{}", set.name());
        }
    }

    #[test]
    fn this_machine_picks_the_widest_instruction_set_it_has() {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx512f") {
            assert_eq!(InstructionSet::detect(), InstructionSet::Avx512);
        }
        assert!(InstructionSet::detect().kernels().is_some());
    }

    #[test]
    fn scores_follow_the_wire_convention() {
        let a = [3.0f32, 0.0];
        let b = [0.0f32, 4.0];
        assert_eq!(Space::new(Metric::Dot).score(Space::new(Metric::Dot).distance(&a, &b)), 0.0);
        let euclid = Space::new(Metric::Euclid);
        assert!((euclid.score(euclid.distance(&a, &b)) - 5.0).abs() < 1e-6);
        let manhattan = Space::new(Metric::Manhattan);
        assert!((manhattan.score(manhattan.distance(&a, &b)) - 7.0).abs() < 1e-6);
        let cosine = Space::new(Metric::Cosine);
        let (mut x, mut y) = (vec![2.0f32, 0.0], vec![1.0f32, 1.0]);
        cosine.prepare(&mut x);
        cosine.prepare(&mut y);
        assert!((cosine.score(cosine.distance(&x, &y)) - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6);
    }

    #[test]
    fn cosine_leaves_a_zero_vector_zero() {
        let mut zero = vec![0.0f32; 4];
        Space::new(Metric::Cosine).prepare(&mut zero);
        assert!(zero.iter().all(|v| *v == 0.0));
    }
}
