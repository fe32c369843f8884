// Exact max-sum over a tree of parts on a cell grid with quadratic springs (pictorial structures,
// Felzenszwalb & Huttenlocher 2005), messages by 2-D generalized distance transforms (gdt/gdt.h): the
// native twin of treeMaxSum in src/models/pose.ts, with the same operations, so the two give the same
// labelling and value. Plain C++ (no Node headers).
#pragma once
#include <cstdint>
#include <vector>

#include "gdt/gdt.h"

namespace gapbcfw {
namespace pose {

// Spring of the edge child -> parent: pairwise score -(ax dx^2 + bx dx + ay dy^2 + by dy),
// dx = x_child - x_parent - mx, dy likewise; ax, ay >= 0 (the positivity constraints, App. H).
struct Spring {
  double ax, bx, ay, by;
  int32_t mx, my;
};

struct Tree {
  int32_t parts;
  const int32_t* parents;  // parent of every part, -1 at the root
  const int32_t* order;    // every part after its parent, root first
  const Spring* springs;   // per part (the root's entry is ignored)
};

// Scratch reused across calls (grows, never shrinks).
struct TreeWorkspace {
  std::vector<double> padded;
  std::vector<int32_t> argmax;
  std::vector<int32_t> back;  // parts x cells: the best child cell for every parent cell
  std::vector<int32_t> path;  // the decoded cell of every part
  gdt::Workspace2d gdt;
};

// max over z of sum_p totals_p(z_p) - sum_{c != root} spring_c(z_c - z_parent(c)) on an H x W grid.
// totals holds parts x H*W score maps (part-major, row-major cells) and is overwritten by the messages.
// Writes the argmax cell of every part to out_x/out_y and returns the value. Ties: the smallest cell
// index at the root and in every message (as gdt::Transform2d). Throws std::domain_error when a message
// has no maximiser (scores that overflowed to infinities or NaN).
double TreeMaxSum(double* totals, int32_t H, int32_t W, const Tree& tree, int32_t* out_x, int32_t* out_y,
                  TreeWorkspace& ws);

// n images for one batched pass of the pose SSVM, image i on a rows[i] x cols[i] grid. Part p's score map
// is either given (maps[i]: parts x cells, from a scoring backend) or the linear filter response of w's
// p-th k x k x dim filter on the image's float features (features[i]; hog::FilterResponses); exactly one
// of maps/features is set. The loss map (1/P) min(|z - z*_p|^2 / s_i^2, 1) is added when truth_x is not
// null (truth_x/truth_y: n x parts cells, truth_scale: n). Decodes every image on `threads` threads and
// writes the parts' cells to out_x/out_y (n x parts). Labels equal per-image TreeMaxSum over the same maps.
struct PoseBatch {
  int32_t n;
  const double* const* maps;
  const float* const* features;
  const int32_t* rows;
  const int32_t* cols;
  int32_t dim;
  const double* w;
  int32_t filter_size;
  const int32_t* truth_x;
  const int32_t* truth_y;
  const double* truth_scale;
};
void DecodeBatch(const PoseBatch& batch, const Tree& tree, int32_t* out_x, int32_t* out_y, int32_t threads);

}  // namespace pose
}  // namespace gapbcfw
