// dlib-ocr: dlib's structural SVM (the OCA cutting-plane solver on a structural_svm_problem) on a linear-chain OCR
// training set, on gapbcfw's objective, timed (scripts/bench/dlib.ts).
//
//   dlib-ocr WORDS LAMBDA EPS WOUT
//
// WORDS: the training words as scripts/bench/dlib.ts writes them (text: n, D, K; then per word T and T lines of a
// state and D feature values). The joint feature map is gapbcfw's chain model (d = K D + 2K + K^2: state s's emission
// weights at s*D, first-state biases at K*D, last-state biases at K*D + K, transitions at K*D + 2K + prev + K*next) and
// the loss of a wrong state is 1/T (normalised Hamming), so dlib's w is gapbcfw's w, index for index. dlib minimises
// 1/2 ||w||^2 + C (1/n) sum_i H_i(w), which is (1/lambda) times gapbcfw's objective at C = 1/lambda. The separation
// oracle is a loss-augmented Viterbi that scores each emission once. Prints one JSON line with the CPU seconds of
// training (CLOCK_PROCESS_CPUTIME_ID) and writes w as little-endian float64 to WOUT.
#include <dlib/svm.h>
#include <time.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <iostream>
#include <vector>

typedef dlib::matrix<double, 0, 1> Vector;
// Joint feature vectors are sparse (index, value) pairs in increasing index order, as dlib's sequence labeling
// problem keeps them (its cache then scores them in O(nnz)).
typedef std::vector<std::pair<unsigned long, double>> Sparse;

struct Word {
  std::vector<double> x;  // T x D
  std::vector<int> y;
};

class ChainProblem : public dlib::structural_svm_problem<Vector, Sparse> {
 public:
  ChainProblem(std::vector<Word> words, long D, long K) : words_(std::move(words)), D_(D), K_(K) {}
  long get_num_dimensions() const override { return K_ * D_ + 2 * K_ + K_ * K_; }
  long get_num_samples() const override { return static_cast<long>(words_.size()); }

  void get_truth_joint_feature_vector(long i, Sparse& psi) const override { phi(words_[i], words_[i].y, psi); }

  // The loss-augmented argmax over the word's labellings (Viterbi over node scores with the 1/T loss), its loss and
  // its joint feature vector.
  void separation_oracle(long i, const Vector& w, double& loss, Sparse& psi) const override {
    const Word& word = words_[i];
    const long T = static_cast<long>(word.y.size());
    std::vector<double> theta(T * K_), delta(T * K_);
    std::vector<int> back(T * K_), z(T);
    for (long t = 0; t < T; ++t) {
      for (long k = 0; k < K_; ++k) {
        double s = k != word.y[t] ? 1.0 / T : 0.0;
        for (long j = 0; j < D_; ++j) s += w(k * D_ + j) * word.x[t * D_ + j];
        if (t == 0) s += w(K_ * D_ + k);
        if (t == T - 1) s += w(K_ * D_ + K_ + k);
        theta[t * K_ + k] = s;
      }
    }
    const long trans = K_ * D_ + 2 * K_;
    for (long k = 0; k < K_; ++k) delta[k] = theta[k];
    for (long t = 1; t < T; ++t) {
      for (long k = 0; k < K_; ++k) {
        long arg = 0;
        for (long j = 1; j < K_; ++j)
          if (delta[(t - 1) * K_ + j] + w(trans + j + K_ * k) > delta[(t - 1) * K_ + arg] + w(trans + arg + K_ * k)) arg = j;
        delta[t * K_ + k] = delta[(t - 1) * K_ + arg] + w(trans + arg + K_ * k) + theta[t * K_ + k];
        back[t * K_ + k] = static_cast<int>(arg);
      }
    }
    long arg = 0;
    for (long k = 1; k < K_; ++k)
      if (delta[(T - 1) * K_ + k] > delta[(T - 1) * K_ + arg]) arg = k;
    for (long t = T - 1; t >= 0; --t) {
      z[t] = static_cast<int>(arg);
      arg = back[t * K_ + arg];
    }
    long wrong = 0;
    for (long t = 0; t < T; ++t) wrong += z[t] != word.y[t] ? 1 : 0;
    loss = static_cast<double>(wrong) / T;
    phi(word, z, psi);
  }

 private:
  void phi(const Word& word, const std::vector<int>& y, Sparse& psi) const {
    std::map<unsigned long, double> sum;
    const long T = static_cast<long>(y.size());
    for (long t = 0; t < T; ++t) {
      for (long j = 0; j < D_; ++j)
        if (word.x[t * D_ + j] != 0) sum[y[t] * D_ + j] += word.x[t * D_ + j];
      if (t > 0) sum[K_ * D_ + 2 * K_ + y[t - 1] + K_ * y[t]] += 1;
    }
    sum[K_ * D_ + y[0]] += 1;
    sum[K_ * D_ + K_ + y[T - 1]] += 1;
    psi.assign(sum.begin(), sum.end());
  }

  std::vector<Word> words_;
  long D_, K_;
};

static double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: dlib-ocr WORDS LAMBDA EPS WOUT\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  long n, D, K;
  in >> n >> D >> K;
  std::vector<Word> words(n);
  for (Word& word : words) {
    long T;
    in >> T;
    word.y.resize(T);
    word.x.resize(T * D);
    for (long t = 0; t < T; ++t) {
      in >> word.y[t];
      for (long j = 0; j < D; ++j) in >> word.x[t * D + j];
    }
  }
  if (!in) {
    std::cerr << argv[1] << ": malformed\n";
    return 1;
  }
  ChainProblem problem(std::move(words), D, K);
  problem.set_c(1.0 / std::atof(argv[2]));
  problem.set_epsilon(std::atof(argv[3]));
  Vector w;
  dlib::oca solver;
  const double t0 = cpu_seconds();
  solver(problem, w);
  const double seconds = cpu_seconds() - t0;
  std::printf("{\"trainCpu\":%.6f}\n", seconds);
  std::FILE* out = std::fopen(argv[4], "wb");
  if (out == nullptr || std::fwrite(&w(0), sizeof(double), w.size(), out) != static_cast<size_t>(w.size())) return 1;
  std::fclose(out);
  return 0;
}
