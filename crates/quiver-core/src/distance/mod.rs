//! Distance kernels: a scalar reference for each metric and SIMD versions chosen once at run
//! time. Callers resolve a kernel with `dot_kernel()` and keep the function pointer, so the hot
//! loop pays no feature check per call.

pub mod scalar;

#[cfg(target_arch = "x86_64")]
mod x86;

/// A distance kernel over two equal-length slices.
pub type Kernel = fn(&[f32], &[f32]) -> f32;

/// The fastest dot-product kernel this CPU supports.
pub fn dot_kernel() -> Kernel {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(kernel) = x86::dot_kernel() {
            return kernel;
        }
    }
    scalar::dot
}

/// Name of the instruction set behind `dot_kernel()`, for logs and benchmarks.
pub fn instruction_set() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if x86::dot_kernel().is_some() {
            return "avx2+fma";
        }
    }
    "scalar"
}
