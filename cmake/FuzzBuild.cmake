# The fuzz build: ingest/ (every reader in the registry) compiled by clang with libFuzzer's
# coverage and AddressSanitizer + UndefinedBehaviorSanitizer, and the one fuzz target of
# tests/fuzz. It lives in its own build directory (tests/fuzz/run_fuzz.sh makes it under
# build/fuzz), so the main g++ build and the README's main job never pay for it.
#
# With FOMCAST_FUZZ_MODEL_LIB (the main build's libfomcast_model.a) the model library is
# reused instead of recompiled: the readers are what is fuzzed, and the fuzz build then
# compiles only them. libstdc++ is shared by g++ and clang, so the two link together.
# (The model format's layer-list expansion is part of ingest/, so it is fuzzed too; the
# store, tables and seeding are not linked at all.)
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "FOMCAST_BUILD_FUZZERS needs clang: -DCMAKE_CXX_COMPILER=clang++-14")
endif()
set(FOMCAST_SANITIZERS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
add_compile_options(-fsanitize=fuzzer-no-link ${FOMCAST_SANITIZERS} -g)
add_link_options(${FOMCAST_SANITIZERS})

set(FOMCAST_FUZZ_MODEL_LIB "" CACHE FILEPATH "libfomcast_model.a of the main build (empty: compile model/ here)")
if(FOMCAST_FUZZ_MODEL_LIB)
  add_library(fomcast_model STATIC IMPORTED)
  set_target_properties(fomcast_model PROPERTIES IMPORTED_LOCATION "${FOMCAST_FUZZ_MODEL_LIB}")
  target_include_directories(fomcast_model INTERFACE "${PROJECT_SOURCE_DIR}/model/include")
  target_link_libraries(fomcast_model INTERFACE nlohmann_json::nlohmann_json)
else()
  add_subdirectory(model)
endif()
add_subdirectory(ingest)
add_subdirectory(tests/fuzz)
