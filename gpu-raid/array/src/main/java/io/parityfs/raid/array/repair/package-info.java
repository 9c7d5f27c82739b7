/**
 * Making an array whole again, and checking that it is: {@link
 * io.parityfs.raid.array.repair.Rebuilder} rebuilds one slot (a replaced or re-attached drive)
 * object by object with {@code ShardRebuild}, reporting {@link
 * io.parityfs.raid.array.repair.RebuildProgress}; {@link io.parityfs.raid.array.repair.Scrubber}
 * checks every cell against its CRC and parity and repairs what is bad ({@code ObjectScrub}),
 * reporting {@link io.parityfs.raid.array.repair.ScrubProgress} and {@link
 * io.parityfs.raid.array.repair.ScrubReport}. {@link io.parityfs.raid.array.repair.ScrubSchedule}
 * and {@link io.parityfs.raid.array.repair.GarbageSchedule} run the background passes (scrub,
 * garbage collection) on their intervals ({@code PassTimer}).
 *
 * <p>On {@link io.parityfs.raid.array.object} and the packages below it; the running array
 * ({@link io.parityfs.raid.array.RaidArray}) drives it.
 */
package io.parityfs.raid.array.repair;
