/*
 * ISA-L's own C loop for the codec benchmark (IsalCLoop.java): ec_init_tables once, then
 * ec_encode_data over the benchmark's own direct buffers, timed here with CLOCK_MONOTONIC, so the
 * figure is what a C program gets from the installed library on the same bytes. Built by the
 * benchmark with gcc against libisal (Debian: libisal-dev); not part of any shipped artifact.
 */
#include <isa-l/erasure_code.h>
#include <jni.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct loop {
  int k;
  int m;
  int stripes;
  unsigned char *tables;
  unsigned char **data;   /* stripes * k addresses */
  unsigned char **parity; /* stripes * m addresses */
};

static void throw_state(JNIEnv *env, const char *message) {
  jclass c = (*env)->FindClass(env, "java/lang/IllegalStateException");
  if (c != NULL) {
    (*env)->ThrowNew(env, c, message);
  }
}

static int addresses(JNIEnv *env, jobjectArray buffers, unsigned char **out, jsize n) {
  if ((*env)->GetArrayLength(env, buffers) != n) {
    throw_state(env, "wrong number of buffers");
    return 0;
  }
  for (jsize i = 0; i < n; i++) {
    jobject b = (*env)->GetObjectArrayElement(env, buffers, i);
    out[i] = b == NULL ? NULL : (unsigned char *) (*env)->GetDirectBufferAddress(env, b);
    if (out[i] == NULL) {
      throw_state(env, "every buffer must be a direct ByteBuffer");
      return 0;
    }
    (*env)->DeleteLocalRef(env, b);
  }
  return 1;
}

static void release(struct loop *l) {
  if (l != NULL) {
    free(l->tables);
    free(l->data);
    free(l->parity);
    free(l);
  }
}

/* coefficients: m rows of k bytes (the codec's parity matrix); data, parity: stripe-major. */
JNIEXPORT jlong JNICALL Java_io_parityfs_raid_bench_IsalCLoop_open(JNIEnv *env, jclass cls,
    jint k, jint m, jbyteArray coefficients, jobjectArray data, jobjectArray parity) {
  (void) cls;
  jsize n = (*env)->GetArrayLength(env, data);
  if (k <= 0 || m <= 0 || n % k != 0 || (*env)->GetArrayLength(env, coefficients) != k * m) {
    throw_state(env, "inconsistent geometry");
    return 0;
  }
  struct loop *l = calloc(1, sizeof *l);
  if (l == NULL) {
    throw_state(env, "out of memory");
    return 0;
  }
  l->k = k;
  l->m = m;
  l->stripes = n / k;
  l->tables = malloc((size_t) 32 * k * m);
  l->data = malloc(sizeof(unsigned char *) * (size_t) n);
  l->parity = malloc(sizeof(unsigned char *) * (size_t) l->stripes * m);
  if (l->tables == NULL || l->data == NULL || l->parity == NULL) {
    release(l);
    throw_state(env, "out of memory");
    return 0;
  }
  if (!addresses(env, data, l->data, n) || !addresses(env, parity, l->parity, l->stripes * m)) {
    release(l);
    return 0;
  }
  jbyte *c = (*env)->GetByteArrayElements(env, coefficients, NULL);
  ec_init_tables(k, m, (unsigned char *) c, l->tables);
  (*env)->ReleaseByteArrayElements(env, coefficients, c, JNI_ABORT);
  return (jlong) (intptr_t) l;
}

/*
 * Encodes count stripes of len bytes per shard, stripe (first + i) % cycle for i = 0..count-1;
 * returns the nanoseconds the loop took.
 */
JNIEXPORT jlong JNICALL Java_io_parityfs_raid_bench_IsalCLoop_encode(JNIEnv *env, jclass cls,
    jlong handle, jint first, jint count, jint cycle, jint len) {
  (void) cls;
  struct loop *l = (struct loop *) (intptr_t) handle;
  if (cycle <= 0 || cycle > l->stripes || first < 0 || count < 0) {
    throw_state(env, "stripe range out of the set");
    return 0;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int s = first % cycle;
  for (jint i = 0; i < count; i++) {
    ec_encode_data(len, l->k, l->m, l->tables, l->data + (size_t) s * l->k,
        l->parity + (size_t) s * l->m);
    s = s + 1 == cycle ? 0 : s + 1;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (jlong) (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec);
}

JNIEXPORT void JNICALL Java_io_parityfs_raid_bench_IsalCLoop_close(JNIEnv *env, jclass cls,
    jlong handle) {
  (void) env;
  (void) cls;
  release((struct loop *) (intptr_t) handle);
}
