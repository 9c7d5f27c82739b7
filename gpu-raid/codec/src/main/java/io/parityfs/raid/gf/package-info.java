/**
 * Arithmetic in GF(2^8) with the reducing polynomial 0x11d (x^8+x^4+x^3+x^2+1), and the
 * matrices over it that define RAID-6 and Reed-Solomon codes. Pure maths: nothing here knows
 * about buffers, kernels or backends.
 */
package io.parityfs.raid.gf;
