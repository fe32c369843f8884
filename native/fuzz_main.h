// The stand-alone driver of the fuzz targets when libFuzzer is not available (g++ builds with
// -DGAPBCFW_FUZZ_MAIN): `./fuzz_X FILE...` replays inputs; `./fuzz_X [--seconds S] [--seed N]` feeds
// LLVMFuzzerTestOneInput random inputs from `next_input(rng, buf)` for S seconds. Plain C++, header only.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace gapbcfw {

template <class NextInput>
int RunFuzzMain(int argc, char** argv, const char* name, double default_seconds, NextInput next_input) {
  double seconds = default_seconds;
  uint64_t seed = 1;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--seconds" && i + 1 < argc) seconds = std::atof(argv[++i]);
    else if (arg == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else files.push_back(arg);
  }
  auto run = [](const std::string& bytes) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  };
  if (!files.empty()) {
    for (const std::string& file : files) {
      std::ifstream in(file, std::ios::binary);
      run(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
    }
    std::printf("%s: replayed %zu inputs\n", name, files.size());
    return 0;
  }
  std::mt19937_64 rng(seed);
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t runs = 0;
  std::string buf;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds) {
    next_input(rng, buf);
    run(buf);
    ++runs;
  }
  std::printf("%s: %llu inputs in %.0f s (seed %llu), no failures\n", name, static_cast<unsigned long long>(runs), seconds,
              static_cast<unsigned long long>(seed));
  return 0;
}

}  // namespace gapbcfw
