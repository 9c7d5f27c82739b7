/*
 * Host-compilation shim: lets gcc compile the CUDA kernel sources in gpu-raid/codec/src/main/cuda
 * as C and run their bodies on the CPU, one emulated thread at a time. The kernels use no shared
 * memory and no barriers, so running the threads of a grid one after another gives the same
 * result as the GPU.
 */
#ifndef PFS_CUDA_HOST_SHIM_H
#define PFS_CUDA_HOST_SHIM_H

#include <stdint.h>

typedef struct {
  unsigned int x, y, z;
} pfs_dim3;

static pfs_dim3 threadIdx, blockIdx, blockDim, gridDim;

#define __restrict__ restrict

/* Runs `call` once for every thread of a grid_x x block_x launch. */
#define PFS_LAUNCH(grid_x, block_x, call)                                   \
  do {                                                                      \
    gridDim.x = (grid_x); gridDim.y = gridDim.z = 1;                        \
    blockDim.x = (block_x); blockDim.y = blockDim.z = 1;                    \
    for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++) {            \
      for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++) {      \
        call;                                                               \
      }                                                                     \
    }                                                                       \
  } while (0)

#endif
