/**
 * ParityFS's node-local protection: GF(2^8) maths ({@link io.parityfs.raid.gf}), the
 * {@link io.parityfs.raid.codec.ParityCodec} API and its CPU implementation
 * ({@link io.parityfs.raid.codec.cpu}).
 */
package io.parityfs.raid;
