#!/usr/bin/env bash
# Builds the GPU parity kernels (gpu-raid/codec/src/main/cuda/parity_kernels.cu) into the fatbin the
# GPU codec loads from its class path, and records how it was built beside it:
#
#   gpu-raid/codec/src/main/resources/io/parityfs/raid/codec/gpu/parity_kernels.fatbin
#       sm_80 and sm_90 machine code, plus compute_90 PTX for newer GPUs (JIT by the driver)
#   gpu-raid/codec/src/main/resources/io/parityfs/raid/codec/gpu/parity_kernels.properties
#       source.sha256, nvcc.version, nvcc.flags, kernels, fatbin.sha256
#
# Both files are committed, so builds without nvcc still ship the kernels; KernelArtifactTest
# fails when the .cu file changes without a rerun of this script. Run from any directory.
# The output is deterministic: nvcc 13.0 writes the same fatbin bytes on every run.
#
# Environment: NVCC (default: nvcc on the PATH).
set -euo pipefail
export LC_ALL=C

module_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../codec" && pwd)"
source_file="$module_dir/src/main/cuda/parity_kernels.cu"
out_dir="$module_dir/src/main/resources/io/parityfs/raid/codec/gpu"
fatbin="$out_dir/parity_kernels.fatbin"
properties="$out_dir/parity_kernels.properties"
kernels=(pfs_xor pfs_pq pfs_gf_apply pfs_delta)
# Keep in one line of words: KernelArtifactTest splits nvcc.flags on blanks to recompile.
flags=(-fatbin -O3
  -gencode arch=compute_80,code=sm_80
  -gencode 'arch=compute_90,code=[sm_90,compute_90]')

nvcc="${NVCC:-nvcc}"
if ! command -v "$nvcc" >/dev/null 2>&1; then
  echo "build-kernels.sh: '$nvcc' not found; install the CUDA toolkit (nvcc 13) or set NVCC=/path/to/nvcc" >&2
  exit 1
fi
if [ ! -f "$source_file" ]; then
  echo "build-kernels.sh: kernel source $source_file is missing" >&2
  exit 1
fi

# "Cuda compilation tools, release 13.0, V13.0.88" -> "release 13.0, V13.0.88"
nvcc_version="$("$nvcc" --version | sed -n 's/^.*\(release [0-9][0-9.]*, V[0-9][0-9.]*\).*$/\1/p' | head -n 1)"
if [ -z "$nvcc_version" ]; then
  echo "build-kernels.sh: cannot read the release line from '$nvcc --version'" >&2
  exit 1
fi

mkdir -p "$out_dir"
tmp_dir="$(mktemp -d)"
trap 'rm -rf "$tmp_dir"' EXIT

"$nvcc" "${flags[@]}" -o "$tmp_dir/parity_kernels.fatbin" "$source_file"
if [ ! -s "$tmp_dir/parity_kernels.fatbin" ]; then
  echo "build-kernels.sh: nvcc wrote an empty fatbin" >&2
  exit 1
fi
# The cubins are stored uncompressed, so every kernel name appears in the bytes; a missing one
# means a kernel was renamed or lost its extern "C".
for k in "${kernels[@]}"; do
  if ! grep -qaF "$k" "$tmp_dir/parity_kernels.fatbin"; then
    echo "build-kernels.sh: kernel $k is not in the fatbin" >&2
    exit 1
  fi
done

kernel_list="$(IFS=,; echo "${kernels[*]}")"
{
  echo "# Written by gpu-raid/scripts/build-kernels.sh: do not edit; rerun the script instead."
  echo "source.sha256=$(sha256sum "$source_file" | cut -d ' ' -f 1)"
  echo "nvcc.version=$nvcc_version"
  echo "nvcc.flags=${flags[*]}"
  echo "kernels=$kernel_list"
  echo "fatbin.sha256=$(sha256sum "$tmp_dir/parity_kernels.fatbin" | cut -d ' ' -f 1)"
} > "$tmp_dir/parity_kernels.properties"

mv -f "$tmp_dir/parity_kernels.fatbin" "$fatbin"
mv -f "$tmp_dir/parity_kernels.properties" "$properties"

echo "wrote $fatbin ($(wc -c < "$fatbin") bytes, nvcc $nvcc_version)"
echo "wrote $properties"
if command -v cuobjdump >/dev/null 2>&1; then
  cuobjdump --list-elf --list-ptx "$fatbin"
fi
