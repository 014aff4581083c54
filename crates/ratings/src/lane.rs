//! One formula, two widths: the arithmetic an indicator's recursion needs,
//! on one `f64` (one symbol) or on a pair of them side by side (two symbols
//! in lockstep, one SSE2 instruction for both). Each lane of a pair takes
//! exactly the IEEE operations the single value takes (no fused
//! multiply-add), so a pair's lanes are bit for bit what two single runs
//! give; what a pair saves is the divider's time, which a chain of
//! divisions such as the directional movement's is bound by, and the
//! latency of the recursions' dependent chains, which two symbols share.

use std::ops::{Add, BitAnd, Div, Mul, Sub};

use wide::f64x2;

/// A number (or a pair of numbers) the recursions compute with.
pub(crate) trait Lane:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self>
{
    /// The outcome of a comparison, per lane.
    type Mask: Copy + BitAnd<Output = Self::Mask>;

    /// How many symbols side by side.
    const LANES: usize;

    /// The value with `f(k)` in lane `k`.
    fn from_fn(f: impl FnMut(usize) -> f64) -> Self;
    /// Lane `k`'s value (`k < LANES`).
    fn lane(self, k: usize) -> f64;
    fn splat(x: f64) -> Self;
    fn gt(self, other: Self) -> Self::Mask;
    fn lt(self, other: Self) -> Self::Mask;
    fn ne(self, other: Self) -> Self::Mask;
    /// `if_true` where `mask` holds, `if_false` elsewhere.
    fn select(mask: Self::Mask, if_true: Self, if_false: Self) -> Self;
    fn abs(self) -> Self;
}

impl Lane for f64 {
    type Mask = bool;
    const LANES: usize = 1;

    #[inline(always)]
    fn from_fn(mut f: impl FnMut(usize) -> f64) -> Self {
        f(0)
    }
    #[inline(always)]
    fn lane(self, _: usize) -> f64 {
        self
    }

    #[inline(always)]
    fn splat(x: f64) -> Self {
        x
    }
    #[inline(always)]
    fn gt(self, other: Self) -> bool {
        self > other
    }
    #[inline(always)]
    fn lt(self, other: Self) -> bool {
        self < other
    }
    #[inline(always)]
    fn ne(self, other: Self) -> bool {
        self != other
    }
    #[inline(always)]
    fn select(mask: bool, if_true: Self, if_false: Self) -> Self {
        if mask {
            if_true
        } else {
            if_false
        }
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f64::abs(self)
    }
}

/// Two symbols' values side by side.
pub(crate) type Pair = f64x2;

impl Lane for Pair {
    /// All ones in a lane where the comparison holds.
    type Mask = f64x2;
    const LANES: usize = 2;

    #[inline(always)]
    fn from_fn(mut f: impl FnMut(usize) -> f64) -> Self {
        pair(f(0), f(1))
    }
    #[inline(always)]
    fn lane(self, k: usize) -> f64 {
        self.as_array()[k]
    }

    #[inline(always)]
    fn splat(x: f64) -> Self {
        f64x2::splat(x)
    }
    #[inline(always)]
    fn gt(self, other: Self) -> f64x2 {
        self.simd_gt(other)
    }
    #[inline(always)]
    fn lt(self, other: Self) -> f64x2 {
        self.simd_lt(other)
    }
    #[inline(always)]
    fn ne(self, other: Self) -> f64x2 {
        self.simd_ne(other)
    }
    #[inline(always)]
    fn select(mask: f64x2, if_true: Self, if_false: Self) -> Self {
        mask.bitselect(if_true, if_false)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f64x2::abs(self)
    }
}

/// Two values as a pair: `a` in the first lane, `b` in the second.
#[inline(always)]
pub(crate) fn pair(a: f64, b: f64) -> Pair {
    f64x2::new([a, b])
}
