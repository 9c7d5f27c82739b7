/**
 * One drive of an array: a directory on one device. {@link io.parityfs.raid.array.drive.Drive}
 * and {@link io.parityfs.raid.array.drive.DriveFile} are the I/O seam every shard and manifest
 * file goes through ({@link io.parityfs.raid.array.drive.FileDrive} the real one, O_DIRECT where
 * the file system has it; tests wrap it to inject faults); {@link
 * io.parityfs.raid.array.drive.DriveQueues} is the I/O engine (threads per drive slot); {@link
 * io.parityfs.raid.array.drive.DriveLocks} keeps one array per drive directory and {@link
 * io.parityfs.raid.array.drive.DrivePaths} checks the directories an array is given; {@link
 * io.parityfs.raid.array.drive.LabelFile} reads and writes a drive's label atomically; {@link
 * io.parityfs.raid.array.drive.DriveState} is what the array says of a slot's drive.
 *
 * <p>Depends only on {@link io.parityfs.raid.array.format}; assembly, objects and repair build
 * on it.
 */
package io.parityfs.raid.array.drive;
