/*
 * Runs one ParityFS CUDA kernel on the CPU through the host shim, for the Java tests
 * (io.parityfs.raid.codec.gpu.KernelHostShimTest).
 *
 * stdin, little-endian: eight int64 values
 *   kernel (0 xor, 1 pq, 2 gf_apply, 3 delta), rows, cols, words, stripes, grid, block, coef_len
 * then coef_len coefficient bytes, then three word arrays:
 *   in  (stripes * cols * words words; for delta: old data, stripes * words)
 *   in2 (for delta only: new data, stripes * words)
 *   out (stripes * rows * words words: the initial output, which delta XORs into)
 * stdout: the out array after the launch.
 */
#include <stdio.h>
#include <stdlib.h>
#include "cuda_host_shim.h"
#include "../../main/cuda/parity_kernels.cu"

static void read_exact(void *p, size_t n) {
  if (n > 0 && fread(p, 1, n, stdin) != n) {
    fprintf(stderr, "kernel_runner: short input\n");
    exit(2);
  }
}

int main(void) {
  int64_t h[8];
  read_exact(h, sizeof h);
  int64_t kernel = h[0], rows = h[1], cols = h[2], words = h[3], stripes = h[4];
  unsigned grid = (unsigned) h[5], block = (unsigned) h[6];
  int64_t coef_len = h[7];
  int64_t in_words = (kernel == 3 ? 1 : cols) * stripes * words;
  int64_t in2_words = kernel == 3 ? stripes * words : 0;
  int64_t out_words = rows * stripes * words;
  /* Exact sizes, so the sanitizer build catches an overrun of even one word. */
  uint8_t *coef = malloc(coef_len > 0 ? (size_t) coef_len : 1);
  uint32_t *in = malloc(in_words > 0 ? (size_t) in_words * 4 : 1);
  uint32_t *in2 = malloc(in2_words > 0 ? (size_t) in2_words * 4 : 1);
  uint32_t *out = malloc(out_words > 0 ? (size_t) out_words * 4 : 1);
  read_exact(coef, coef_len);
  read_exact(in, in_words * 4);
  read_exact(in2, in2_words * 4);
  read_exact(out, out_words * 4);
  switch (kernel) {
    case 0: PFS_LAUNCH(grid, block, pfs_xor(in, out, (int) cols, words, stripes)); break;
    case 1: PFS_LAUNCH(grid, block, pfs_pq(in, out, (int) cols, words, stripes)); break;
    case 2: PFS_LAUNCH(grid, block, pfs_gf_apply(in, out, coef, (int) rows, (int) cols, words, stripes)); break;
    case 3: PFS_LAUNCH(grid, block, pfs_delta(in, in2, out, coef, (int) rows, words, stripes)); break;
    default: fprintf(stderr, "kernel_runner: unknown kernel %lld\n", (long long) kernel); return 2;
  }
  if (fwrite(out, 4, out_words, stdout) != (size_t) out_words) {
    return 3;
  }
  return 0;
}
