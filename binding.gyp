{
  "targets": [
    {
      "target_name": "gapbcfw",
      "sources": ["native/binding/addon.cc", "native/binding/batch.cc", "native/binding/blocks.cc", "native/binding/chain.cc", "native/binding/chain_decode.cc", "native/binding/gdt.cc", "native/binding/graph.cc", "native/binding/hog.cc", "native/binding/maxflow.cc", "native/binding/pose.cc", "native/binding/scoring.cc", "native/binding/slic.cc", "native/binding/solver.cc", "native/binding/steps.cc", "native/gdt/gdt.cc", "native/graph/cuts.cc", "native/graph/lp.cc", "native/graph/mrf.cc", "native/hog/hog.cc", "native/maxflow/any_graph.cc", "native/maxflow/batch.cc", "native/maxflow/dimacs.cc", "native/maxflow/flow_graph.cc", "native/pose/tree.cc", "native/scoring/batch.cc", "native/scoring/chain.cc", "native/scoring/chain_decode.cc", "native/scoring/rows.cc", "native/scoring/segmentation.cc", "native/slic/slic.cc", "native/solver/bcfw_loop.cc", "native/solver/block_store.cc", "native/solver/block_update.cc", "native/solver/chain_blocks.cc", "native/solver/exact.cc", "native/solver/multiclass_blocks.cc", "native/solver/simplex.cc"],
      "include_dirs": ["native"],
      "dependencies": ["<!(node -p \"require('node-addon-api').targets\"):node_addon_api_except_all"],
      "defines": ["NAPI_VERSION=8"],
      "cflags_cc": ["-std=c++17", "-O3", "-fopenmp-simd"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti"],
      "xcode_settings": { "CLANG_CXX_LANGUAGE_STANDARD": "c++17", "GCC_ENABLE_CPP_EXCEPTIONS": "YES" },
      "msvs_settings": { "VCCLCompilerTool": { "AdditionalOptions": ["/std:c++17"], "ExceptionHandling": 1 } }
    }
  ]
}
