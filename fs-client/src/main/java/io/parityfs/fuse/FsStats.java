package io.parityfs.fuse;

/**
 * What {@code statfs} answers ({@code df}): capacity and free bytes summed over the cluster's
 * storage targets, in blocks of {@link #blockSize}.
 *
 * @param blockSize bytes per block (f_bsize and f_frsize)
 * @param blocks total blocks (f_blocks)
 * @param freeBlocks free blocks (f_bfree and f_bavail: no blocks are reserved)
 * @param files inodes (f_files): the file id space, 2^40
 * @param freeFiles free inodes (f_ffree, f_favail): unknown, so as many as {@code files}
 * @param nameMax longest name (f_namemax)
 */
public record FsStats(long blockSize, long blocks, long freeBlocks, long files, long freeFiles,
    int nameMax) {}
