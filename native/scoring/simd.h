// Wider vectors where the CPU has them, in one portable binary.
#pragma once
#include <cstdint>  // defines __GLIBC__ where glibc is the C library

// GAPBCFW_WIDE_SIMD on a function makes GCC emit an AVX2 copy and a baseline x86-64 copy, picked once at
// load time by the CPU's features (an ifunc: glibc only). Only for loops whose arithmetic does not depend
// on the vector width (element-wise adds, multiplies and maxima; no reductions, no FMA contraction: AVX2
// alone does not enable FMA), so every copy computes bit-identical results. Other compilers and targets
// get the baseline copy.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__)
#define GAPBCFW_WIDE_SIMD __attribute__((target_clones("avx2", "default")))
#else
#define GAPBCFW_WIDE_SIMD
#endif

#if defined(__GNUC__)
#define GAPBCFW_INLINE inline __attribute__((always_inline))
#else
#define GAPBCFW_INLINE inline
#endif
