/**
 * Choosing a parity backend: {@link io.parityfs.raid.codec.select.ParityCodecFactory} picks,
 * per geometry, the CPU or the GPU codec ({@link io.parityfs.raid.codec.select.CodecBackend}:
 * auto, cpu or gpu), calibrating both when asked for auto, and says why ({@link
 * io.parityfs.raid.codec.select.CodecSelection}). It sits above the API ({@code raid.codec}) and
 * both backends, so that neither the API nor a backend depends on the other backend.
 */
package io.parityfs.raid.codec.select;
