// Exact max-sum over a tree of parts with types (mixtures of parts: Yang & Ramanan, "Articulated human
// detection with flexible mixtures of parts", TPAMI 2013) on a cell grid with quadratic springs (pictorial
// structures, Felzenszwalb & Huttenlocher 2005). Every message is a 2-D generalized distance transform
// (gdt/gdt.h). With one type per part this is the plain pictorial-structures tree, with the operations of
// treeMaxSum in src/models/pose.ts, so the two give the same labelling and value. Plain C++ (no Node headers).
#pragma once
#include <cstdint>
#include <vector>

#include "gdt/gdt.h"
#include "scoring/batch.h"

namespace gapbcfw {
namespace pose {

// Spring of the arc child -> parent for one child type: pairwise score -(ax dx^2 + bx dx + ay dy^2 + by dy),
// dx = x_child - x_parent - mx, dy likewise, (mx, my) the type's anchor; ax, ay >= 0 (positivity, App. H).
struct Spring {
  double ax, bx, ay, by;
  int32_t mx, my;
};

// Part p has types[p] >= 1 types; its states (p, t) are numbered first[p] + t, part after part (so
// first[p+1] = first[p] + types[p]). The score of a labelling (z_p, t_p) of every part is
//   sum_p score_{first[p]+t_p}(z_p) - sum_{c != root} [spring_{first[c]+t_c}(z_c - z_q) - bias(c, t_c, t_q)],
// q = parents[c], with the co-occurrence bias(c, t_c, t_q) = biases[(first[c] + t_c) * max_types + t_q].
struct Tree {
  int32_t parts;
  const int32_t* parents;  // parent of every part, -1 at the root
  const int32_t* order;    // every part after its parent, root first
  const int32_t* types;    // types of every part (>= 1)
  const int32_t* first;    // first state of every part
  int32_t max_types;       // the largest types[p]: the stride of biases
  const Spring* springs;   // per state (a root state's entry is ignored)
  const double* biases;    // states x max_types (a root state's row is ignored)
};

// Scratch reused across calls (grows, never shrinks).
struct TreeWorkspace {
  std::vector<double> padded;
  std::vector<int32_t> argmax;
  std::vector<double> message;          // child types x cells: the transform of each child type at the parent's cells
  std::vector<int32_t> message_cell;    // child types x cells: its best child cell
  std::vector<int32_t> back_cell;       // per part c: types[parent] x cells, the best child cell for every parent state
  std::vector<int32_t> back_type;       // the same for the best child type
  std::vector<int64_t> back_first;      // per part: where its rows start in back_cell / back_type
  std::vector<int32_t> path_cell;       // the decoded cell and type of every part
  std::vector<int32_t> path_type;
  gdt::Workspace2d gdt;
};

// max over (z_p, t_p) of the tree score above on an H x W grid. totals holds one score map per state
// (states x H*W, state-major, row-major cells) and is overwritten by the messages. Writes the argmax cell and
// type of every part to out_x/out_y/out_type and returns the value. Ties: the smallest state index at the root
// (types first, then cells) and in every message the smallest cell (as gdt::Transform2d), then the smallest
// child type. Throws std::domain_error when a message has no maximiser (scores that overflowed to infinities).
double TreeMaxSum(double* totals, int32_t H, int32_t W, const Tree& tree, int32_t* out_x, int32_t* out_y, int32_t* out_type,
                  TreeWorkspace& ws);

// The cell-centre offset of the HOG grids (hog.h: output cell c is centred (c + 1.5) cells from the image
// border): the cell c of a pyramid level of factor f lies at (c + kCellCentre) / f cells of factor 1.
constexpr double kCellCentre = 1.5;

// One pyramid level of an image: exactly one of features (rows x cols x dim floats) and maps (one score map per
// state, states x rows x cols, from a scoring backend) is set.
struct PoseLevel {
  int32_t rows, cols;
  const float* features;
  const double* maps;
};

// One image: its levels (PoseBatch.levels of them) and, for loss augmentation, its ground truth: the cells of
// the parts at level truth_level and the loss scale there (in that level's cells).
struct PoseImage {
  const PoseLevel* levels;
  const int32_t* truth_x;
  const int32_t* truth_y;
  double truth_scale;
  int32_t truth_level;
};

// n images of a batched pass of the pose SSVM. Level l has the factor level_scales[l] (relative image size).
// The state maps of a level are the linear filter responses of w's states x (k x k x dim) filters
// (hog::FilterResponses) or the given maps; loss augmentation adds, to every state of a part p < joints, the
// loss map (1/joints) min(|z - z*_l|^2 / s_l^2, 1), where z*_l = (z* + kCellCentre) r - kCellCentre and
// s_l = s* r are the truth and its scale at level l (r = level_scales[l] / level_scales[truth_level]).
struct PoseBatch {
  int32_t n;
  const PoseImage* images;
  int32_t levels;
  const double* level_scales;
  int32_t dim;
  int32_t filter_size;
  int32_t joints;
};

// Where DecodeBatch writes: per image the cell and type of every part (n x parts) and the level (n).
struct PoseLabels {
  int32_t* x;
  int32_t* y;
  int32_t* type;
  int32_t* level;
};

// The (loss-augmented when `augmented`) argmax of every item: TreeMaxSum on every level, the best level kept
// (ties: the smallest level), on `threads` threads. Labels equal TreeMaxSum's over the same maps, level by level.
// Throws std::domain_error on scores that are not finite (w x features overflowed).
void DecodeBatch(const PoseBatch& batch, const Tree& tree, const double* w, bool augmented, BatchItems items, const PoseLabels& out,
                 int32_t threads);

}  // namespace pose
}  // namespace gapbcfw
