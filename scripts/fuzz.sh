#!/usr/bin/env bash
# scripts/fuzz.sh — build the libFuzzer targets of tests/fuzz/ (scene parser, checkpoint loader) with
# clang's -fsanitize=fuzzer,address,undefined into build-fuzz/ and run each for SECONDS (default 60).
#   scripts/fuzz.sh [SECONDS]
# Needs clang (libFuzzer ships with it) and LLVM's OpenMP (libomp); scripts/setup does not install
# them: apt-get install clang libomp-dev. CC_FUZZ names another clang.
# Seeds: assets/*.scene and tests/bad_inputs/*.scene; tests/bad_inputs/*.ckpt (ok.ckpt: a valid one made
# by the program, and damaged copies of it: scripts/make_bad_checkpoints.py). fuzz_checkpoint mutates
# checkpoints field by field with the checksum recomputed (its header says how). The build-fuzz/
# corpora keep what each run found. A crash leaves build-fuzz/crash-* (or leak-*, timeout-*):
# reproduce with build-fuzz/fuzz_scene FILE (or fuzz_checkpoint), fix it, and add FILE as a case of
# tests/bad_inputs/cases.txt (a scene) or cases_checkpoint.txt (a checkpoint).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
cc=${CC_FUZZ:-$(command -v clang-14 || command -v clang || true)}
if [ -z "$cc" ]; then
  echo "fuzz: no clang on PATH (apt-get install clang libomp-dev)" >&2
  exit 1
fi
out=build-fuzz
mkdir -p "$out/corpus_scene" "$out/corpus_checkpoint"

# the whole simulation is compiled in (a checkpoint builds a vx_sim), CPU only; the file formats but
# io/png_file.c (libpng, the renderer's); OpenMP from clang's libomp
flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
       -fopenmp -std=c11 -Wno-pass-failed -Ifmm -Ivortex -Iio -Ibase -Isrc/common)
srcs=(fmm/*.c vortex/*.c base/*.c)
for f in io/*.c; do [ "$f" = io/png_file.c ] || srcs+=("$f"); done
echo "fuzz: building with $cc"
"$cc" "${flags[@]}" tests/fuzz/fuzz_scene.c "${srcs[@]}" -lm -lpthread -o "$out/fuzz_scene"
"$cc" "${flags[@]}" tests/fuzz/fuzz_checkpoint.c "${srcs[@]}" -lm -lpthread -o "$out/fuzz_checkpoint"

# seeds (small files only: libFuzzer's default -max_len comes from the corpus)
cp assets/*.scene "$out/corpus_scene/"
find tests/bad_inputs -name '*.scene' -size -64k -exec cp {} "$out/corpus_scene/" \;
cp tests/bad_inputs/*.ckpt "$out/corpus_checkpoint/"

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1
status=0
for t in scene checkpoint; do
  echo "fuzz: fuzz_$t for ${secs}s"
  if ! (cd "$out" && OMP_NUM_THREADS=1 ./fuzz_"$t" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=4096 \
        -print_final_stats=1 corpus_"$t" > fuzz_"$t".log 2>&1); then
    status=1
    echo "fuzz: fuzz_$t FOUND A CRASH (see $out/fuzz_$t.log and $out/crash-*)"
  fi
  grep -E '^#[0-9]+.*(DONE|pulse)|stat::number_of_executed_units|stat::average_exec_per_sec|cov:' "$out/fuzz_$t.log" | tail -3
  echo "fuzz: corpus_$t holds $(ls "$out/corpus_$t" | wc -l) inputs"
done
exit $status
