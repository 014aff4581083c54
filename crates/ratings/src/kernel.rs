//! Which instruction set the every-bar passes are compiled for, chosen at
//! run time: the baseline x86-64 build (SSE2) everywhere, and a copy of the
//! same code compiled with AVX2 where the CPU has it.
//!
//! Only AVX2 is enabled, not FMA: Rust never fuses a multiplication and an
//! addition on its own, but with FMA enabled an explicit `mul_add` would
//! round once instead of twice, and the two copies must give the same bits.
//! AVX2 only widens and re-encodes the same IEEE operations (4 lanes instead
//! of 2, three-operand VEX forms), so both copies compute identical values.

/// The compiled copy of the every-bar passes to run (see
/// [`EveryBar::fill_on`](crate::EveryBar::fill_on)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel(Isa);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    Baseline,
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Kernel {
    /// The build's own target (baseline x86-64: SSE2); runs on any CPU.
    pub const BASELINE: Kernel = Kernel(Isa::Baseline);

    /// The AVX2 copy, if this CPU has AVX2 (`None` otherwise, and on
    /// targets other than x86-64).
    pub fn avx2() -> Option<Kernel> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Some(Kernel(Isa::Avx2));
        }
        None
    }

    /// The fastest copy this CPU runs: AVX2 if it has it, else the baseline.
    pub fn best() -> Kernel {
        Kernel::avx2().unwrap_or(Kernel::BASELINE)
    }

    pub(crate) fn isa(self) -> Isa {
        self.0
    }
}
