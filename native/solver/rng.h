// The native twin of src/core/rng.ts: xoshiro128** (Blackman & Vigna) over the same 4-word state, with the same
// draws (next: 53-bit doubles from two words; below: unbiased integers by rejection; permutation: Fisher-Yates),
// so that the native step loop and the TypeScript engine take the same blocks from the same state.
#pragma once
#include <cstdint>

namespace gapbcfw {

// A view of the 4 state words (owned by the caller: the TypeScript Rng's state array).
class Xoshiro128 {
 public:
  explicit Xoshiro128(uint32_t* state) : s_(state) {}

  uint32_t next_u32() {
    uint32_t* s = s_;
    const uint32_t result = rotl(s[1] * 5u, 7) * 9u;
    const uint32_t t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  // Uniform double in [0, 1) with 53 random bits (Rng.next).
  double next() {
    const uint32_t hi = next_u32() >> 5;
    const uint32_t lo = next_u32() >> 6;
    return (static_cast<double>(hi) * 67108864.0 + static_cast<double>(lo)) / 9007199254740992.0;
  }

  // Uniform integer in [0, n), n >= 1, without modulo bias (Rng.int): the top 2^32 mod n words are redrawn. In 32-bit
  // arithmetic (two 32-bit divisions, about half the time of 64-bit ones): r = (2^32 - n) mod n = 2^32 mod n.
  uint32_t below(uint32_t n) {
    const uint32_t r = (0u - n) % n;
    uint32_t x;
    do x = next_u32();
    while (r != 0 && x >= 0u - r);
    return x % n;
  }

  // A uniformly random permutation of 0..n-1 into out (Rng.permutation).
  void permutation(int32_t* out, int32_t n) {
    for (int32_t i = 0; i < n; ++i) out[i] = i;
    for (int32_t i = n - 1; i > 0; --i) {
      const auto j = static_cast<int32_t>(below(static_cast<uint32_t>(i) + 1u));
      const int32_t t = out[i];
      out[i] = out[j];
      out[j] = t;
    }
  }

 private:
  static uint32_t rotl(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }
  uint32_t* s_;
};

}  // namespace gapbcfw
