/*
 * ParityFS GPU parity kernels: XOR (RAID-5), P+Q (RAID-6) and the GF(2^8) matrix apply used by
 * Reed-Solomon encode and by every reconstruction. Field GF(2^8), polynomial 0x11d: the same
 * bytes as the CPU codec (io.parityfs.raid.codec.cpu) and ISA-L.
 *
 * Batch layout (device memory, 32-bit words; shard lengths are padded by the host to a whole
 * number of 16-byte units, so `words` is a multiple of 4):
 *
 *   in  : stripes x cols shards, shard j of stripe s at in  + (s * cols + j) * words
 *   out : stripes x rows shards, shard r of stripe s at out + (s * rows + r) * words
 *
 * One thread handles one 32-bit word of one stripe (four bytes of every shard at that offset),
 * in a grid-stride loop, so the host chooses how many blocks are in flight (the GPU share)
 * independently of the batch size.
 *
 * The file is plain C inside CUDA's syntax: no templates, no shared memory, no barriers, so the
 * host-compilation shim (gpu-raid/src/test/native/cuda_host_shim.h) can compile the same kernel
 * bodies with gcc and run them on the CPU in every CI run.
 */
/*
 * PFS_INLINE helpers are pure arithmetic and compile for host and device; PFS_DEVICE helpers read
 * the launch builtins (blockIdx, blockDim, threadIdx, gridDim), which exist only in device code
 * (the host shim provides them as globals).
 */
#ifdef __CUDACC__
#include <stdint.h>
#define PFS_KERNEL extern "C" __global__ void
#define PFS_INLINE static __host__ __device__ __forceinline__
#define PFS_DEVICE static __device__ __forceinline__
#else
#define PFS_KERNEL void
#define PFS_INLINE static inline
#define PFS_DEVICE static inline
#endif

/* Multiplies each of the four bytes of x by 2 (the generator) in GF(2^8). */
PFS_INLINE uint32_t pfs_mul2(uint32_t x) {
  uint32_t high = (x >> 7) & 0x01010101u;
  return ((x & 0x7f7f7f7fu) << 1) ^ (high * 0x1du);
}

/*
 * c * x for the four bytes of x, given the doublings d[b] = 2^b * x: the XOR of the d[b] whose
 * bit b is set in c. c is the same for every thread of a launch, so the branches never diverge.
 */
PFS_INLINE uint32_t pfs_mul_doublings(const uint32_t d[8], uint32_t c) {
  uint32_t acc = 0;
  if (c & 0x01u) acc ^= d[0];
  if (c & 0x02u) acc ^= d[1];
  if (c & 0x04u) acc ^= d[2];
  if (c & 0x08u) acc ^= d[3];
  if (c & 0x10u) acc ^= d[4];
  if (c & 0x20u) acc ^= d[5];
  if (c & 0x40u) acc ^= d[6];
  if (c & 0x80u) acc ^= d[7];
  return acc;
}

/*
 * A thread's position in the grid-stride loop as (stripe s, word w). The 64-bit divisions that
 * split a flat index are done once per thread; each step then adds the stride's (ds, dw) and
 * carries at most once, since dw < words.
 */
typedef struct {
  long long s, w, ds, dw;
} pfs_cursor;

PFS_DEVICE pfs_cursor pfs_begin(long long words) {
  long long g = (long long) blockIdx.x * blockDim.x + threadIdx.x;
  long long stride = (long long) gridDim.x * blockDim.x;
  pfs_cursor c;
  c.s = g / words;
  c.w = g - c.s * words;
  c.ds = stride / words;
  c.dw = stride - c.ds * words;
  return c;
}

PFS_DEVICE void pfs_next(pfs_cursor *c, long long words) {
  c->s += c->ds;
  c->w += c->dw;
  if (c->w >= words) {
    c->w -= words;
    c->s++;
  }
}

/* out[s][0] = XOR over j of in[s][j]. */
PFS_KERNEL pfs_xor(const uint32_t *__restrict__ in, uint32_t *__restrict__ out, int cols,
                   long long words, long long stripes) {
  for (pfs_cursor c = pfs_begin(words); c.s < stripes; pfs_next(&c, words)) {
    long long s = c.s;
    long long w = c.w;
    const uint32_t *src = in + s * cols * words + w;
    uint32_t acc = src[0];
    for (int j = 1; j < cols; j++) {
      acc ^= src[j * words];
    }
    out[s * words + w] = acc;
  }
}

/* RAID-6: out[s][0] = P = XOR of the k data shards, out[s][1] = Q = sum of 2^j * D_j (Horner). */
PFS_KERNEL pfs_pq(const uint32_t *__restrict__ in, uint32_t *__restrict__ out, int k,
                  long long words, long long stripes) {
  for (pfs_cursor c = pfs_begin(words); c.s < stripes; pfs_next(&c, words)) {
    long long s = c.s;
    long long w = c.w;
    const uint32_t *src = in + s * k * words + w;
    uint32_t p = src[(k - 1) * words];
    uint32_t q = p;
    for (int j = k - 2; j >= 0; j--) {
      uint32_t v = src[j * words];
      p ^= v;
      q = pfs_mul2(q) ^ v;
    }
    out[(s * 2) * words + w] = p;
    out[(s * 2 + 1) * words + w] = q;
  }
}

/*
 * out[s][r] = sum over j of coef[r * cols + j] * in[s][j], for rows r0 .. r0+nr-1 (nr <= 4):
 * each input word is read once per group of four rows and doubled seven times; each product is
 * then a few XORs of the doublings.
 */
PFS_INLINE void pfs_apply_rows(const uint32_t *src, uint32_t *dst, const uint8_t *coef, int r0,
                               int nr, int cols, long long words) {
  uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  for (int j = 0; j < cols; j++) {
    uint32_t d[8];
    d[0] = src[j * words];
    for (int b = 1; b < 8; b++) {
      d[b] = pfs_mul2(d[b - 1]);
    }
    a0 ^= pfs_mul_doublings(d, coef[r0 * cols + j]);
    if (nr > 1) a1 ^= pfs_mul_doublings(d, coef[(r0 + 1) * cols + j]);
    if (nr > 2) a2 ^= pfs_mul_doublings(d, coef[(r0 + 2) * cols + j]);
    if (nr > 3) a3 ^= pfs_mul_doublings(d, coef[(r0 + 3) * cols + j]);
  }
  dst[r0 * words] = a0;
  if (nr > 1) dst[(r0 + 1) * words] = a1;
  if (nr > 2) dst[(r0 + 2) * words] = a2;
  if (nr > 3) dst[(r0 + 3) * words] = a3;
}

/* The GF(2^8) matrix apply: coef is a rows x cols matrix in device memory (row-major bytes). */
PFS_KERNEL pfs_gf_apply(const uint32_t *__restrict__ in, uint32_t *__restrict__ out,
                        const uint8_t *__restrict__ coef, int rows, int cols, long long words,
                        long long stripes) {
  for (pfs_cursor c = pfs_begin(words); c.s < stripes; pfs_next(&c, words)) {
    long long s = c.s;
    long long w = c.w;
    const uint32_t *src = in + s * cols * words + w;
    uint32_t *dst = out + s * rows * words + w;
    for (int r0 = 0; r0 < rows; r0 += 4) {
      int nr = rows - r0 < 4 ? rows - r0 : 4;
      pfs_apply_rows(src, dst, coef, r0, nr, cols, words);
    }
  }
}

/*
 * Parity delta for a partial write: out[s][r] ^= coef[r] * (old[s] ^ new[s]) for r < rows.
 * old and new are stripes x 1 shards; out is stripes x rows.
 */
PFS_KERNEL pfs_delta(const uint32_t *__restrict__ old_data, const uint32_t *__restrict__ new_data,
                     uint32_t *__restrict__ out, const uint8_t *__restrict__ coef, int rows,
                     long long words, long long stripes) {
  for (pfs_cursor c = pfs_begin(words); c.s < stripes; pfs_next(&c, words)) {
    long long s = c.s;
    long long w = c.w;
    uint32_t d[8];
    d[0] = old_data[s * words + w] ^ new_data[s * words + w];
    for (int b = 1; b < 8; b++) {
      d[b] = pfs_mul2(d[b - 1]);
    }
    for (int r = 0; r < rows; r++) {
      out[(s * rows + r) * words + w] ^= pfs_mul_doublings(d, coef[r]);
    }
  }
}
