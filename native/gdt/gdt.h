// Generalized distance transforms for max-sum messages (plain C++17, no Node headers).
//
// Reference: P. F. Felzenszwalb and D. P. Huttenlocher, "Distance Transforms of Sampled Functions",
// Theory of Computing 8 (2012), Sec. 3 (1-D squared-Euclidean transform by the lower envelope of
// parabolas, O(n)) and Sec. 4 (separable 2-D transform). The paper minimises
//     D_f(p) = min_q ( (p - q)^2 + f(q) );
// here we maximise the negated form with a quadratic + linear deformation cost, which is what a
// max-sum message through a spring (pictorial structures, Felzenszwalb & Huttenlocher 2005) needs:
//
//     D(p) = max_{q = 0..n-1}  f(q) - a (p - q)^2 - b (p - q),     p = 0..n-1,  a >= 0.
//
// The upper envelope of the downward parabolas q -> f(q) - a (p-q)^2 - b (p-q) plays the role of the
// paper's lower envelope.
//
// Contract (shared by every function below):
//  * a must be finite and >= 0, b finite. Entries of f must be finite or -infinity (NaN and +inf are
//    invalid input: the result is then unspecified but memory-safe). -inf marks an impossible state
//    and is never selected while any finite entry exists.
//  * If every entry of f is -inf, D(p) = -inf and argmax[p] = kNoArgmax (-1) for all p.
//  * Ties are broken towards the smallest q (in 2-D: the smallest flat index y'*W + x', i.e. smallest
//    y' first, then smallest x'), exactly for data where the arithmetic is exact (e.g. integer
//    f, a, b), and up to rounding of the envelope intersections otherwise.
//  * a == 0 is handled by an exact linear scan (no division by a). Any a > 0, however small
//    (subnormals included), goes through the envelope, whose intersection formula never divides by
//    zero and copes with intersections that overflow to +-inf.
//  * out[p] is always evaluated as f(q*) - a*d*d - b*d with d = p - q* (2-D: the x term first, then
//    the y term), so the value at the returned argmax reproduces D bit for bit (as long as the
//    compiler does not contract a*d*d - b*d into FMAs: true of the default x86-64 build, not
//    necessarily of -march=native).
//  * out may alias f exactly (in-place transform). Other partial overlaps of out/argmax with f are
//    not supported in 2-D (1-D tolerates any overlap between f and out).
//  * n (1-D) and H*W (2-D) must not exceed INT32_MAX because argmax is int32.
//  * The O(1) preconditions (a, b, sizes, null pointers) are checked and violations throw
//    std::invalid_argument; the O(n) scan of f for NaN/+inf is the caller's job (the Node binding
//    and the TypeScript wrapper do it).
//  * No allocation happens inside the loops: the Workspace overloads reuse caller-owned buffers,
//    the convenience overloads allocate once per call.
#ifndef GAPBCFW_GDT_GDT_H_
#define GAPBCFW_GDT_GDT_H_

#include <cstddef>
#include <cstdint>
#include <memory>

namespace gapbcfw {
namespace gdt {

/// argmax value reported when every entry of the input is -inf.
constexpr std::int32_t kNoArgmax = -1;

/// Largest supported length (1-D) or number of cells (2-D): argmax is int32.
constexpr std::size_t kMaxCells = 2147483647u;

/// Scratch for one 1-D transform of length <= capacity (envelope of at most n parabolas). The
/// buffers are left uninitialised (no zero-fill), grow on demand and are reused across calls.
struct Workspace1d {
  std::unique_ptr<std::int32_t[]> v;  // centres q of the parabolas on the envelope (paper: v)
  std::unique_ptr<double[]> z;        // boundaries between envelope parabolas, n+1 (paper: z)
  std::unique_ptr<double[]> fv;       // f(v[k]) (kept so that out may alias f)
  std::size_t capacity = 0;
  /// Grows the buffers to hold a transform of length n (never shrinks).
  void Reserve(std::size_t n);
};

/// Scratch for one 2-D transform.
struct Workspace2d {
  Workspace1d line;                        // for the 1-D passes (capacity max(H, W))
  std::unique_ptr<double[]> col;           // a block of columns, gathered contiguously (kColumnBlock * H)
  std::unique_ptr<std::int32_t[]> colArgY;  // y-argmax of the column pass (kColumnBlock * H)
  std::unique_ptr<std::int32_t[]> colArgX;  // x-argmax of the row pass for the same block
  std::size_t colCapacity = 0;
  void Reserve(std::size_t height, std::size_t width);
};

/// Columns processed together in the second 2-D pass (gathered so that each cache line of the
/// row-major grid is read once per block rather than once per column).
constexpr std::size_t kColumnBlock = 8;

/// 1-D transform: out[p] = max_q f[q] - a (p-q)^2 - b (p-q), argmax[p] = the maximising q.
/// O(n) time. `out` may alias `f`.
void Transform1d(const double* f, std::size_t n, double a, double b, double* out,
                 std::int32_t* argmax, Workspace1d& ws);

/// Same, allocating its own workspace once.
void Transform1d(const double* f, std::size_t n, double a, double b, double* out,
                 std::int32_t* argmax);

/// 2-D separable transform on a row-major H x W grid:
///   out[y*W+x] = max_{y',x'} f[y'*W+x'] - ay (y-y')^2 - by (y-y') - ax (x-x')^2 - bx (x-x'),
///   argmax[y*W+x] = y'*W + x' of the maximiser (kNoArgmax when the whole grid is -inf).
/// One 1-D pass along x for every row, then one along y for every column (paper, Sec. 4).
/// O(H W) time. `out` may alias `f` exactly.
void Transform2d(const double* f, std::size_t height, std::size_t width, double ay, double by,
                 double ax, double bx, double* out, std::int32_t* argmax, Workspace2d& ws);

/// Same, allocating its own workspace once.
void Transform2d(const double* f, std::size_t height, std::size_t width, double ay, double by,
                 double ax, double bx, double* out, std::int32_t* argmax);

}  // namespace gdt
}  // namespace gapbcfw

#endif  // GAPBCFW_GDT_GDT_H_
