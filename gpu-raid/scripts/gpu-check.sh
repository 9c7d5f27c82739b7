#!/usr/bin/env bash
# The GPU self-check of the parity codec (docs/gpu.md, "The GPU self-check").
#
#   gpu-check.sh bundle [DIR]            on a build machine (JDK 17 + Maven + a JDK 22+ for
#                                        jlink): builds a self-contained bundle under 60 MiB in DIR
#                                        (default gpu-raid/target/gpu-check): a jlinked Java
#                                        runtime, the codec jar, JCuda and its natives, this
#                                        script and the tenant load script.
#   gpu-check.sh run [DIR] [ARGS...]     on a GPU machine, no JDK needed: prints the GPU and
#                                        driver, checks CPU == GPU bytes for every scheme and
#                                        erasure pattern, measures throughput (host->host and
#                                        device-resident), PCIe host-to-device bandwidth and a
#                                        tenant's slowdown, and writes docs/benchmarks/codec-gpu.json
#                                        (copied with the log to $OUT when set). ARGS go to
#                                        GpuSelfCheck: --quick, --seconds N, --deadline N, --out PATH.
#   gpu-check.sh [DIR]                   bundle if DIR has none, then run.
#
# The device machine has CUDA, Python and PyTorch but no JDK: build the bundle here, carry it
# (the run tool's carry: ["gpu-raid/target/gpu-check"]), and run `gpu-check.sh run` there.
# Exit status of run: 0 done (goals reported, not enforced), 1 CPU != GPU, 2 bad arguments,
# 3 no usable GPU, 4 deadline passed or a GPU call failed, 124/137 the outer timeout fired.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -x "$here/runtime/bin/java" ]; then
  # This is the copy inside a bundle: the bundle is here, the repository is where we were started.
  repo=$(pwd)
  default_dir=$here
else
  repo=$(cd "$here/../.." && pwd)
  default_dir=$repo/gpu-raid/target/gpu-check
fi
limit_mib=60

mode=auto
case "${1:-}" in
  bundle | run) mode=$1; shift ;;
  -h | --help)
    sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
esac
dir=$default_dir
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  dir=$1
  shift
fi

# A checksum of the sources the bundle's jar is built from, to tell a stale bundle.
source_sum() {
  (cd "$repo" && find gpu-raid/codec/src/main -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
}

jlink_jdk() {
  for j in ${JLINK_JDK:-} /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-2[2-9]* /usr/lib/jvm/*-2[2-9]-*; do
    if [ -x "$j/bin/jlink" ]; then
      echo "$j"
      return
    fi
  done
  echo "gpu-check: no JDK 22+ with jlink found (set JLINK_JDK)" >&2
  exit 1
}

bundle() {
  local jdk
  jdk=$(jlink_jdk)
  echo "gpu-check: building gpu-raid/codec"
  (cd "$repo" && mvn -q -B ${MVN_FLAGS--o} -pl gpu-raid/codec -am package -DskipTests)
  rm -rf "$dir"
  mkdir -p "$dir/lib"
  (cd "$repo" && mvn -q -B ${MVN_FLAGS--o} -pl gpu-raid/codec dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$dir/lib")
  cp "$repo"/gpu-raid/codec/target/parityfs-codec-*.jar "$dir/lib/"
  rm -f "$dir"/lib/*-sources.jar "$dir"/lib/*-tests.jar
  echo "gpu-check: jlink from $jdk"
  "$jdk/bin/jlink" --add-modules java.base,java.logging,java.management,jdk.management,jdk.unsupported,jdk.incubator.vector \
      --strip-debug --no-header-files --no-man-pages --compress=zip-9 --output "$dir/runtime"
  cp "$here/gpu-check.sh" "$here/tenant_load.py" "$dir/"
  source_sum >"$dir/source.sum"
  local bytes
  bytes=$(du -sb "$dir" | cut -f1)
  echo "gpu-check: bundle $dir: $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }') MiB" \
      "(runtime $(du -sm "$dir/runtime" | cut -f1) MiB, lib: $(cd "$dir/lib" && ls | tr '\n' ' '))"
  if [ "$bytes" -ge $((limit_mib * 1048576)) ]; then
    echo "gpu-check: the bundle must stay under $limit_mib MiB" >&2
    exit 1
  fi
}

run() {
  if [ ! -x "$dir/runtime/bin/java" ]; then
    echo "gpu-check: no bundle in $dir (run: gpu-check.sh bundle on a build machine)" >&2
    exit 1
  fi
  local out deadline=270 args=("$@") i
  if [ -d "$repo/docs/benchmarks" ]; then
    out=$repo/docs/benchmarks/codec-gpu.json
  else
    out=$dir/codec-gpu.json
  fi
  for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[i]}" in
      --out) out=${args[i + 1]:-$out} ;;
      --deadline) deadline=${args[i + 1]:-$deadline} ;;
    esac
  done
  local tenant=$repo/gpu-raid/scripts/tenant_load.py
  [ -f "$tenant" ] || tenant=$dir/tenant_load.py
  if [ -d "$repo/gpu-raid/codec/src/main" ] && [ -f "$dir/source.sum" ] \
      && [ "$(source_sum)" != "$(cat "$dir/source.sum")" ]; then
    echo "gpu-check: warning: gpu-raid/codec/src/main differs from what the bundle was built from" \
        "(rebuild: gpu-check.sh bundle)"
  fi
  local limit=()
  if command -v timeout >/dev/null; then
    limit=(timeout -k 10 $((deadline + 30)))
  fi
  local log=/dev/null
  if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
    log=$OUT/gpu-check.log
  fi
  local status=0 marker
  marker=$(mktemp)
  {
    echo "== nvidia-smi"
    if command -v nvidia-smi >/dev/null; then
      timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current,clocks.max.sm \
          --format=csv 2>&1 || echo "nvidia-smi failed"
    else
      echo "nvidia-smi not found"
    fi
    # The Java deadline (--deadline, default 270 s) ends the check with status 4 and a stack; the
    # outer timeout only catches a JVM that cannot even do that.
    "${limit[@]}" "$dir/runtime/bin/java" --add-modules jdk.incubator.vector \
        --enable-native-access=ALL-UNNAMED \
        -Djdk.incubator.vector.VECTOR_ACCESS_OOB_CHECK=0 -Xmx8g -XX:MaxDirectMemorySize=16g \
        -cp "$dir/lib/*" io.parityfs.raid.codec.gpu.check.GpuSelfCheck \
        --out "$out" --tenant-script "$tenant" "${args[@]}" 2>&1 || status=$?
    echo "gpu-check: exit status $status"
    if [ -n "${OUT:-}" ] && [ -d "$OUT" ] && [ "$out" -nt "$marker" ]; then
      cp "$out" "$OUT/"
    fi
    rm -f "$marker"
    exit "$status"
  } | tee "$log"
}

case "$mode" in
  bundle) bundle ;;
  run) run "$@" ;;
  auto)
    [ -x "$dir/runtime/bin/java" ] || bundle
    run "$@"
    ;;
esac
