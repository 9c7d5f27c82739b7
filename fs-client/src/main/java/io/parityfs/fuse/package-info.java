/**
 * The FUSE mount: a ParityFS namespace as a local POSIX file system ({@code parityfs mount}).
 *
 * <p>{@link io.parityfs.fuse.PfsFuseOperations} is the file system itself: path-based POSIX
 * operations on a {@link io.parityfs.client.ParityClient} that return 0 (or a count) or a
 * negative Linux errno, with their own small value types ({@link io.parityfs.fuse.FileAttributes},
 * {@link io.parityfs.fuse.DirectoryFiller}, {@link io.parityfs.fuse.FsStats}). It knows nothing of
 * the native binding, so a binding over the FFM API (JDK 22+) can replace jnr-fuse without
 * touching it. {@link io.parityfs.fuse.JnrFuseBinding} adapts it to jnr-fuse (libfuse 2), and
 * {@link io.parityfs.fuse.PfsMount} runs one mount: mount, wait, unmount, commit what is open.
 *
 * <p>See {@code docs/fuse.md} for options, the consistency model (close-to-open) and the errno
 * table.
 */
package io.parityfs.fuse;
