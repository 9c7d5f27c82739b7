/**
 * The CPU parity codec. {@link io.parityfs.raid.codec.cpu.CpuParityCodec} maps each scheme onto
 * a few kernels (XOR, P+Q by Horner's rule, GF(2^8) matrix apply, parity delta), implemented
 * twice: with the Java Vector API (nibble-table multiply with {@code selectFrom}, the technique
 * of ISA-L's AVX2 path) and as a scalar fallback chosen at run time when
 * {@code jdk.incubator.vector} is not in the boot layer.
 */
package io.parityfs.raid.codec.cpu;
