/*
 * The reference side of IsalDifferentialTest: Intel ISA-L's own encode and decode, driven over
 * stdin/stdout. Built at test time with
 *   gcc -O2 -std=c11 -Wall -Wextra -Werror -o target/isal-ref/isal_ref isal_ref.c -lisal
 * (Debian: libisal-dev).
 *
 * Requests, read one after another until end of input; every integer is a little-endian int32:
 *   op scheme k m len nerased erased[0..nerased-1]   then the payload
 *   op      1 = encode: payload k*len data bytes; reply m*len parity bytes
 *           2 = decode: payload (k+m)*len bytes, shard after shard (the erased ones are garbage,
 *               never read); reply nerased*len bytes, the erased shards in request order
 *   scheme  0 = xor (RAID-5, xor_gen), 1 = pq (RAID-6, pq_gen), 2 = cauchy (Reed-Solomon,
 *           gf_gen_cauchy1_matrix + ec_init_tables + ec_encode_data)
 * Each reply starts with an int32 status 0. On bad input the program prints the reason on
 * standard error and exits with status 2.
 *
 * Encode uses the scheme's own ISA-L call (xor_gen, pq_gen, ec_encode_data). xor_gen and pq_gen
 * want lengths that are multiples of 32 and 32-byte aligned buffers: every buffer is padded with
 * zeros to a multiple of 64 bytes, which leaves the first len bytes of parity unchanged (parity
 * is computed byte by byte). Decode is ISA-L's recipe (erasure_code/erasure_code_test.c,
 * examples/ec/ec_simple_example.c): the scheme's encode matrix (identity on top; for xor one row
 * of ones, for pq a row of ones and a row of 2^j, for cauchy gf_gen_cauchy1_matrix), the rows of
 * the first k surviving shards inverted with gf_invert_matrix, each erased shard's row of the
 * encode matrix times that inverse, applied with ec_init_tables + ec_encode_data.
 */
#include <isa-l/erasure_code.h>
#include <isa-l/raid.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHARDS 64

static void die(const char *what) {
  fprintf(stderr, "isal_ref: %s\n", what);
  exit(2);
}

/* Reads exactly n bytes; returns 0 at a clean end of input before the first byte. */
static int read_fully(void *buf, size_t n, int eof_ok) {
  size_t got = 0;
  while (got < n) {
    size_t r = fread((char *)buf + got, 1, n - got, stdin);
    if (r == 0) {
      if (got == 0 && eof_ok && feof(stdin)) {
        return 0;
      }
      die("short read on standard input");
    }
    got += r;
  }
  return 1;
}

static int32_t read_int(void) {
  unsigned char b[4];
  read_fully(b, 4, 0);
  return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16
                   | (uint32_t)b[3] << 24);
}

static void write_fully(const void *buf, size_t n) {
  if (fwrite(buf, 1, n, stdout) != n) {
    die("short write on standard output");
  }
}

static void write_int(int32_t v) {
  unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                        (unsigned char)(v >> 24)};
  write_fully(b, 4);
}

/* The (k+m) x k encode matrix of a scheme, row-major. */
static void encode_matrix(int scheme, int k, int m, unsigned char *a) {
  if (scheme == 2) {
    gf_gen_cauchy1_matrix(a, k + m, k);
    return;
  }
  memset(a, 0, (size_t)(k + m) * k);
  for (int i = 0; i < k; i++) {
    a[i * k + i] = 1;
  }
  for (int j = 0; j < k; j++) {
    a[k * k + j] = 1;
  }
  if (scheme == 1) {
    unsigned char g = 1;
    for (int j = 0; j < k; j++) {
      a[(k + 1) * k + j] = g;
      g = gf_mul(g, 2);
    }
  }
}

static unsigned char *alloc_shards(int n, size_t padded) {
  unsigned char *p = aligned_alloc(64, (size_t)n * padded);
  if (p == NULL) {
    die("out of memory");
  }
  memset(p, 0, (size_t)n * padded);
  return p;
}

static void encode(int scheme, int k, int m, int len) {
  size_t padded = ((size_t)len + 63) / 64 * 64;
  unsigned char *buf = alloc_shards(k + m, padded);
  void *ptrs[MAX_SHARDS];
  for (int i = 0; i < k + m; i++) {
    ptrs[i] = buf + (size_t)i * padded;
  }
  for (int i = 0; i < k; i++) {
    read_fully(ptrs[i], (size_t)len, 0);
  }
  if (scheme == 0) {
    if (xor_gen(k + 1, (int)padded, ptrs) != 0) {
      die("xor_gen failed");
    }
  } else if (scheme == 1) {
    if (pq_gen(k + 2, (int)padded, ptrs) != 0) {
      die("pq_gen failed");
    }
  } else {
    unsigned char a[MAX_SHARDS * MAX_SHARDS];
    unsigned char tables[MAX_SHARDS * MAX_SHARDS * 32];
    encode_matrix(scheme, k, m, a);
    ec_init_tables(k, m, &a[k * k], tables);
    ec_encode_data(len, k, m, tables, (unsigned char **)ptrs, (unsigned char **)&ptrs[k]);
  }
  write_int(0);
  for (int i = k; i < k + m; i++) {
    write_fully(ptrs[i], (size_t)len);
  }
  free(buf);
}

static void decode(int scheme, int k, int m, int len, int nerased, const int *erased) {
  unsigned char *buf = alloc_shards(k + m, (size_t)len);
  unsigned char *out = alloc_shards(nerased, (size_t)len);
  for (int i = 0; i < k + m; i++) {
    read_fully(buf + (size_t)i * len, (size_t)len, 0);
  }
  unsigned char is_erased[MAX_SHARDS] = {0};
  for (int e = 0; e < nerased; e++) {
    if (is_erased[erased[e]]) {
      die("a shard is erased twice in the request");
    }
    is_erased[erased[e]] = 1;
  }
  unsigned char a[MAX_SHARDS * MAX_SHARDS];
  unsigned char b[MAX_SHARDS * MAX_SHARDS];
  unsigned char d[MAX_SHARDS * MAX_SHARDS];
  unsigned char c[MAX_SHARDS * MAX_SHARDS];
  unsigned char tables[MAX_SHARDS * MAX_SHARDS * 32];
  unsigned char *survivors[MAX_SHARDS];
  unsigned char *outputs[MAX_SHARDS];
  encode_matrix(scheme, k, m, a);
  for (int i = 0, r = 0; r < k; i++) {
    if (i >= k + m) {
      die("fewer than k survivors");
    }
    if (!is_erased[i]) {
      memcpy(&b[r * k], &a[i * k], (size_t)k);
      survivors[r] = buf + (size_t)i * len;
      r++;
    }
  }
  if (gf_invert_matrix(b, d, k) != 0) {
    die("the survivors' matrix is singular");
  }
  for (int e = 0; e < nerased; e++) {
    for (int j = 0; j < k; j++) {
      unsigned char s = 0;
      for (int i = 0; i < k; i++) {
        s ^= gf_mul(a[erased[e] * k + i], d[i * k + j]);
      }
      c[e * k + j] = s;
    }
    outputs[e] = out + (size_t)e * len;
  }
  ec_init_tables(k, nerased, c, tables);
  ec_encode_data(len, k, nerased, tables, survivors, outputs);
  write_int(0);
  write_fully(out, (size_t)nerased * len);
  free(out);
  free(buf);
}

int main(void) {
  for (;;) {
    int32_t op;
    unsigned char b[4];
    if (!read_fully(b, 4, 1)) {
      return 0;
    }
    op = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16
                   | (uint32_t)b[3] << 24);
    int scheme = read_int();
    int k = read_int();
    int m = read_int();
    int len = read_int();
    int nerased = read_int();
    int erased[MAX_SHARDS];
    if (scheme < 0 || scheme > 2 || k < 1 || m < 1 || k + m > MAX_SHARDS || len < 1
        || (scheme == 0 && m != 1) || (scheme == 1 && m != 2) || nerased < 0 || nerased > m) {
      die("bad geometry in request");
    }
    for (int e = 0; e < nerased; e++) {
      erased[e] = read_int();
      if (erased[e] < 0 || erased[e] >= k + m) {
        die("bad erased shard index in request");
      }
    }
    if (op == 1) {
      encode(scheme, k, m, len);
    } else if (op == 2) {
      decode(scheme, k, m, len, nerased, erased);
    } else {
      die("unknown op in request");
    }
    if (fflush(stdout) != 0) {
      die("cannot flush standard output");
    }
  }
}
