/**
 * The array as its drives' labels describe it: {@link io.parityfs.raid.array.assembly.ArrayLabels}
 * creates an array, assembles one from its drive directories and makes every label change (a
 * failed slot, a promoted spare, a replaced drive, a rebuilt slot) one generation at a time,
 * through the package-private {@code ArrayCreator}, {@code ArrayAssembler}, {@code
 * GenerationBump} and {@code SlotReplacement}; the result is an {@link
 * io.parityfs.raid.array.assembly.AssembledArray} of {@link
 * io.parityfs.raid.array.assembly.ArraySlot}s (drives it refused: {@link
 * io.parityfs.raid.array.assembly.RejectedDrive}). {@link
 * io.parityfs.raid.array.assembly.ArrayHealth} says from the slots' states whether the array is
 * {@link io.parityfs.raid.array.assembly.ArrayState#OPTIMAL optimal}, degraded or failed.
 *
 * <p>On {@link io.parityfs.raid.array.drive} and {@link io.parityfs.raid.array.format}; knows
 * nothing of objects.
 */
package io.parityfs.raid.array.assembly;
