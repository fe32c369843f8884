// Pose: a prepared batch of images for the tree max-sum over (cell, type) with GDT messages on every pyramid
// level (native/pose/tree.h). The images, their levels and ground truth are handed over once (checked once,
// kept by reference); each decode takes w's springs and biases and any subset of the images.
#include <napi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "binding/common.h"
#include "binding/register.h"
#include "common/background.h"
#include "pose/tree.h"

namespace gapbcfw::binding {

namespace {

// new PoseBatch({ parents, order, types: Int32Array (P), joints, levelScales: Float64Array (L), featureDim,
// filterSize, images: [{ levels: [{ rows, cols, features?: Float32Array (rows x cols x featureDim) | maps?:
// Float64Array (states x rows x cols, written by the caller before each decode) }] (L), truth?: { x, y:
// Int32Array (P, cells of its level), scale, level } }] }).
// decode({ w, springs: Float64Array (6 per state: ax, bx, ay, by, mx, my), biases: Float64Array (states x
// max types), augmented?, items?, count?, threads?, x, y, types: Int32Array (n x P), levels: Int32Array (n) }).
// decodeInBackground / finishBackground: the same decode on the background queue (see below).
class PoseBatchWrap : public Napi::ObjectWrap<PoseBatchWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "PoseBatch",
                       {InstanceMethod<&PoseBatchWrap::Decode>("decode"), InstanceMethod<&PoseBatchWrap::DecodeInBackground>("decodeInBackground"),
                        InstanceMethod<&PoseBatchWrap::FinishBackground>("finishBackground"), InstanceAccessor<&PoseBatchWrap::Size>("size")});
  }

  explicit PoseBatchWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<PoseBatchWrap>(info) {
    const std::string fn = "PoseBatch";
    const Napi::Env env = info.Env();
    const Napi::Object o = RequireOptions(info, 0, fn);
    ReadTree(o, fn);
    const auto scales = OptionTypedArray<double>(o, "levelScales", fn);
    const std::size_t L = scales.ElementLength();
    if (L < 1 || L > 64) throw Napi::RangeError::New(env, fn + ": levelScales needs 1 to 64 levels");
    for (std::size_t l = 0; l < L; ++l) {
      if (!(scales[l] > 0) || !std::isfinite(scales[l])) throw Napi::RangeError::New(env, fn + ": levelScales must be positive and finite");
    }
    const std::size_t dim = OptionSize(o, "featureDim", fn, 1, 4096);
    const std::size_t k = OptionSize(o, "filterSize", fn, 1, 255);
    if (k % 2 == 0) throw Napi::RangeError::New(env, fn + ": filterSize must be odd");
    const Napi::Value list = o.Get("images");
    if (!list.IsArray()) throw Napi::TypeError::New(env, fn + ": images must be an array, got " + DescribeValue(list));
    const auto arr = list.As<Napi::Array>();
    const std::size_t n = arr.Length();
    levels_.resize(n * L);
    images_.resize(n);
    for (uint32_t i = 0; i < n; ++i) images_[i] = Image(arr.Get(i), i, L, dim, fn + ": images[" + std::to_string(i) + "]");
    batch_ = {static_cast<int32_t>(n), images_.data(), static_cast<int32_t>(L), pinned_.Pin(scales), static_cast<int32_t>(dim), static_cast<int32_t>(k), joints_};
  }

  Napi::Value Size(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(images_.size())); }

  // A background decode never finished is waited for: it reads this object.
  ~PoseBatchWrap() override {
    try {
      if (ticket_ != 0) BackgroundQueue::instance().wait(ticket_);
    } catch (...) {
    }
  }

  Napi::Value Decode(const Napi::CallbackInfo& info) {
    const std::string fn = "PoseBatch.decode";
    const Napi::Env env = info.Env();
    const Call c = Begin(info, fn);
    const pose::PoseLabels out = Outputs(c.o, fn);
    try {
      pose::DecodeBatch(batch_, TreeOf(c.biases), c.w, c.augmented, c.items, out, c.threads);
    } catch (const std::bad_alloc&) {
      throw Napi::Error::New(env, fn + ": out of memory");
    } catch (const std::exception& e) {
      throw Napi::Error::New(env, fn + ": " + e.what());
    }
    return env.Undefined();
  }

  // decodeInBackground({ w, springs, biases, augmented?, items?, count?, threads? }): decode's argmax of the items
  // at copies of w's filters, the springs and the biases, on the background queue's thread (up to `threads`
  // threads with the pool's) into buffers of the batch; returns at once, and the caller's arrays may change
  // meanwhile. Images with maps are refused (the caller rewrites those). finishBackground({ x, y, types, levels })
  // waits, writes the items' entries where decode would, and returns the milliseconds the decode took. No other
  // method may be called in between.
  Napi::Value DecodeInBackground(const Napi::CallbackInfo& info) {
    const std::string fn = "PoseBatch.decodeInBackground";
    const Call c = Begin(info, fn);
    const std::size_t P = parents_.size(), n = images_.size(), L = static_cast<std::size_t>(batch_.levels);
    for (int64_t q = 0; q < c.items.count; ++q) {
      const std::size_t i = static_cast<std::size_t>(c.items[q]);
      for (std::size_t l = 0; l < L; ++l) {
        if (levels_[i * L + l].maps != nullptr) throw Napi::TypeError::New(info.Env(), fn + ": image " + std::to_string(i) + " has score maps, which only decode reads");
      }
    }
    job_w_.assign(c.w, c.w + Filters());
    job_biases_.assign(c.biases, c.biases + states_ * static_cast<std::size_t>(max_types_));
    job_items_.resize(static_cast<std::size_t>(c.items.count));
    for (int64_t q = 0; q < c.items.count; ++q) job_items_[static_cast<std::size_t>(q)] = static_cast<int32_t>(c.items[q]);
    job_x_.resize(n * P);
    job_y_.resize(n * P);
    job_types_.resize(n * P);
    job_levels_.resize(n);
    const BatchItems items{job_items_.data(), c.items.count};
    const bool augmented = c.augmented;
    const int32_t threads = c.threads;
    ticket_ = BackgroundQueue::instance().submit([this, items, augmented, threads] {
      const auto t0 = std::chrono::steady_clock::now();
      pose::DecodeBatch(batch_, TreeOf(job_biases_.data()), job_w_.data(), augmented, items, {job_x_.data(), job_y_.data(), job_types_.data(), job_levels_.data()},
                        threads);
      job_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    });
    return info.Env().Undefined();
  }

  Napi::Value FinishBackground(const Napi::CallbackInfo& info) {
    const std::string fn = "PoseBatch.finishBackground";
    const Napi::Env env = info.Env();
    if (ticket_ == 0) throw Napi::Error::New(env, fn + ": no background decode was started");
    const pose::PoseLabels out = Outputs(RequireOptions(info, 0, fn), fn);
    const std::size_t P = parents_.size();
    const uint64_t ticket = std::exchange(ticket_, 0);
    try {
      BackgroundQueue::instance().wait(ticket);
    } catch (const std::bad_alloc&) {
      throw Napi::Error::New(env, fn + ": out of memory");
    } catch (const std::exception& e) {
      throw Napi::Error::New(env, fn + ": " + e.what());
    }
    for (const int32_t i : job_items_) {
      const std::size_t at = static_cast<std::size_t>(i) * P;
      std::copy_n(job_x_.begin() + at, P, out.x + at);
      std::copy_n(job_y_.begin() + at, P, out.y + at);
      std::copy_n(job_types_.begin() + at, P, out.type + at);
      out.level[i] = job_levels_[static_cast<std::size_t>(i)];
    }
    return Napi::Number::New(env, job_ms_);
  }

 private:
  struct Call {
    Napi::Object o;
    const double* w;
    const double* biases;
    bool augmented;
    BatchItems items;
    int32_t threads;
  };

  // The checked options every decode takes: w's filters, the springs (into springs_), the biases, augmented
  // (every item then needs its truth), the items and threads. Refused while a background decode is in flight.
  Call Begin(const Napi::CallbackInfo& info, const std::string& fn) {
    const Napi::Env env = info.Env();
    if (ticket_ != 0) throw Napi::Error::New(env, fn + ": a background decode is in flight (finishBackground first)");
    pinned_.Check(env, fn);
    const Napi::Object o = RequireOptions(info, 0, fn);
    const std::size_t S = states_, n = images_.size();
    const auto w = OptionTypedArray<double>(o, "w", fn);
    RequireMinLength(w, Filters(), fn + ": w");
    RequireNoNaN(env, w.Data(), Filters(), fn + ": w", false, false);
    const auto springValues = OptionTypedArray<double>(o, "springs", fn);
    RequireLength(springValues, 6 * S, fn + ": springs");
    springs_.resize(S);
    for (std::size_t s = 0; s < S; ++s) {
      const double* v = springValues.Data() + 6 * s;
      const std::string state = " (state " + std::to_string(s) + ")";
      RequireNoNaN(env, v, 6, fn + ": springs" + state, false, false);
      if (v[0] < 0 || v[2] < 0) throw Napi::RangeError::New(env, fn + ": quadratic spring coefficients must be >= 0" + state);
      const bool offsetsOk = v[4] == std::floor(v[4]) && v[5] == std::floor(v[5]) && std::fabs(v[4]) <= kMaxImageSide && std::fabs(v[5]) <= kMaxImageSide;
      if (!offsetsOk) throw Napi::RangeError::New(env, fn + ": anchors must be integers of at most 2^15 cells" + state);
      springs_[s] = {v[0], v[1], v[2], v[3], static_cast<int32_t>(v[4]), static_cast<int32_t>(v[5])};
    }
    const auto biases = OptionTypedArray<double>(o, "biases", fn);
    RequireLength(biases, S * max_types_, fn + ": biases");
    RequireNoNaN(env, biases.Data(), biases.ElementLength(), fn + ": biases", false, false);
    const bool augmented = OptionBool(o, "augmented", fn, false);
    const auto [index, count] = OptionItems(o, n, fn);
    const BatchItems items{index, count};
    if (augmented) {
      for (int64_t q = 0; q < count; ++q) {
        if (images_[items[q]].truth_x == nullptr) throw Napi::TypeError::New(env, fn + ": image " + std::to_string(items[q]) + " has no truth to augment with");
      }
    }
    return {o, w.Data(), biases.Data(), augmented, items, OptionThreads(o, fn)};
  }

  // The label arrays x, y, types (n x parts) and levels (n) of the options, checked.
  pose::PoseLabels Outputs(const Napi::Object& o, const std::string& fn) const {
    const std::size_t P = parents_.size(), n = images_.size();
    auto x = OptionTypedArray<int32_t>(o, "x", fn);
    auto y = OptionTypedArray<int32_t>(o, "y", fn);
    auto types = OptionTypedArray<int32_t>(o, "types", fn);
    auto levels = OptionTypedArray<int32_t>(o, "levels", fn);
    RequireLength(x, n * P, fn + ": x");
    RequireLength(y, n * P, fn + ": y");
    RequireLength(types, n * P, fn + ": types");
    RequireLength(levels, n, fn + ": levels");
    return {x.Data(), y.Data(), types.Data(), levels.Data()};
  }

  // The length of w's state filters, the part of w the decoder reads.
  std::size_t Filters() const { return states_ * static_cast<std::size_t>(batch_.filter_size) * batch_.filter_size * batch_.dim; }

  pose::Tree TreeOf(const double* biases) const {
    return {static_cast<int32_t>(parents_.size()), parents_.data(), order_.data(), types_.data(), first_.data(), max_types_, springs_.data(), biases};
  }

  // parents, order (every part after its parent, the root first), types (>= 1 per part) and joints (the
  // leading parts that carry the loss), copied.
  void ReadTree(const Napi::Object& o, const std::string& fn) {
    const Napi::Env env = o.Env();
    const auto parents = OptionTypedArray<int32_t>(o, "parents", fn);
    const auto order = OptionTypedArray<int32_t>(o, "order", fn);
    const auto types = OptionTypedArray<int32_t>(o, "types", fn);
    const std::size_t P = parents.ElementLength();
    if (P == 0 || P > 4096) throw Napi::RangeError::New(env, fn + ": parents needs 1 to 4096 parts");
    RequireLength(order, P, fn + ": order");
    RequireLength(types, P, fn + ": types");
    std::vector<char> placed(P, 0);
    for (std::size_t q = 0; q < P; ++q) {
      const int32_t p = order[q];
      if (p < 0 || static_cast<std::size_t>(p) >= P || placed[p]) throw Napi::RangeError::New(env, fn + ": order must be a permutation of the parts");
      const int32_t parent = parents[p];
      const bool ok = q == 0 ? parent == -1 : parent >= 0 && static_cast<std::size_t>(parent) < P && placed[parent];
      if (!ok) throw Napi::RangeError::New(env, fn + ": order[" + std::to_string(q) + "] = " + std::to_string(p) + " does not follow its parent (root first)");
      placed[p] = 1;
    }
    parents_.assign(parents.Data(), parents.Data() + P);
    order_.assign(order.Data(), order.Data() + P);
    types_.assign(types.Data(), types.Data() + P);
    first_.resize(P);
    states_ = 0;
    max_types_ = 1;
    for (std::size_t p = 0; p < P; ++p) {
      if (types_[p] < 1 || types_[p] > 256) throw Napi::RangeError::New(env, fn + ": types must be integers in [1, 256]");
      first_[p] = static_cast<int32_t>(states_);
      states_ += static_cast<std::size_t>(types_[p]);
      max_types_ = std::max(max_types_, types_[p]);
    }
    joints_ = static_cast<int32_t>(OptionSize(o, "joints", fn, 1, P));
  }

  // One image's levels and truth, checked (grid sizes, finite features, truth inside its level) and pinned.
  pose::PoseImage Image(const Napi::Value& v, std::size_t i, std::size_t L, std::size_t dim, const std::string& where) {
    const Napi::Env env = v.Env();
    if (!v.IsObject()) throw Napi::TypeError::New(env, where + " must be an object, got " + DescribeValue(v));
    const Napi::Object o = v.As<Napi::Object>();
    const Napi::Value list = o.Get("levels");
    if (!list.IsArray() || list.As<Napi::Array>().Length() != L) throw Napi::TypeError::New(env, where + ": levels must be an array of " + std::to_string(L) + " levels");
    pose::PoseLevel* levels = &levels_[i * L];
    for (uint32_t l = 0; l < L; ++l) {
      const std::string name = where + ".levels[" + std::to_string(l) + "]";
      const Napi::Value lv = list.As<Napi::Array>().Get(l);
      if (!lv.IsObject()) throw Napi::TypeError::New(env, name + " must be an object, got " + DescribeValue(lv));
      const Napi::Object level = lv.As<Napi::Object>();
      const std::size_t rows = OptionSize(level, "rows", name, 1, kMaxImageSide), cols = OptionSize(level, "cols", name, 1, kMaxImageSide);
      levels[l] = {static_cast<int32_t>(rows), static_cast<int32_t>(cols), nullptr, nullptr};
      if (OptionAbsent(level, "features") == OptionAbsent(level, "maps")) throw Napi::TypeError::New(env, name + ": give exactly one of features and maps");
      if (!OptionAbsent(level, "maps")) {
        const auto maps = OptionTypedArray<double>(level, "maps", name);
        RequireLength(maps, states_ * rows * cols, name + ": maps");
        levels[l].maps = pinned_.Pin(maps);
        continue;
      }
      const auto f = OptionTypedArray<float>(level, "features", name);
      RequireLength(f, rows * cols * dim, name + ": features");
      for (std::size_t q = 0; q < f.ElementLength(); ++q) {
        if (!std::isfinite(f[q])) throw Napi::RangeError::New(env, name + ": features[" + std::to_string(q) + "] is not finite");
      }
      levels[l].features = pinned_.Pin(f);
    }
    if (OptionAbsent(o, "truth")) return {levels, nullptr, nullptr, 1, 0};
    const Napi::Value tv = o.Get("truth");
    if (!tv.IsObject()) throw Napi::TypeError::New(env, where + ": truth must be an object, got " + DescribeValue(tv));
    const Napi::Object truth = tv.As<Napi::Object>();
    const std::size_t P = parents_.size();
    const auto tx = OptionTypedArray<int32_t>(truth, "x", where + ".truth");
    const auto ty = OptionTypedArray<int32_t>(truth, "y", where + ".truth");
    RequireLength(tx, P, where + ".truth.x");
    RequireLength(ty, P, where + ".truth.y");
    const std::size_t level = OptionSize(truth, "level", where + ".truth", 0, L - 1);
    const Napi::Value sv = truth.Get("scale");
    const double scale = sv.IsNumber() ? sv.As<Napi::Number>().DoubleValue() : -1;
    if (!(scale > 0) || !std::isfinite(scale)) throw Napi::RangeError::New(env, where + ".truth.scale must be positive and finite");
    for (std::size_t p = 0; p < P; ++p) {
      if (tx[p] < 0 || tx[p] >= levels[level].cols || ty[p] < 0 || ty[p] >= levels[level].rows) {
        throw Napi::RangeError::New(env, where + ".truth: part " + std::to_string(p) + " lies outside its level's grid");
      }
    }
    return {levels, pinned_.Pin(tx), pinned_.Pin(ty), scale, static_cast<int32_t>(level)};
  }

  std::vector<int32_t> parents_, order_, types_, first_;
  std::size_t states_ = 0;
  int32_t max_types_ = 1;
  int32_t joints_ = 1;
  std::vector<pose::PoseLevel> levels_;
  std::vector<pose::PoseImage> images_;
  std::vector<pose::Spring> springs_;
  pose::PoseBatch batch_{};
  PinnedArrays pinned_;
  // The background decode: its copies of w's filters and the biases (the springs stay in springs_, which only
  // Begin writes), its items and the labels it writes (the batch's layout); 0 when none is in flight.
  uint64_t ticket_ = 0;
  std::vector<double> job_w_, job_biases_;
  std::vector<int32_t> job_items_, job_x_, job_y_, job_types_, job_levels_;
  double job_ms_ = 0;
};

}  // namespace

void RegisterPose(Napi::Env env, Napi::Object exports) { exports.Set("PoseBatch", PoseBatchWrap::Define(env)); }

}  // namespace gapbcfw::binding
