/*
 * faultfs: a FUSE (libfuse 2) pass-through file system for the end-to-end fault tests.
 * Usage: faultfs BACKING_DIR CONTROL_DIR MOUNTPOINT [fuse options]
 *
 * Every call goes to the same path under BACKING_DIR, except while a switch file exists in
 * CONTROL_DIR:
 *   fsync-eio         fsync and fsyncdir return EIO (after syncing the backing file, so only
 *                     the answer is wrong, as a device that lost the write would answer)
 *   manifest-enospc   creating, opening for write or writing a file named *.manifest.tmp
 *                     returns ENOSPC
 * Each injected fault is one line on stderr ("faultfs: EIO fsync /path"), which the test
 * reads to know the fault really fired. Runs in the foreground; unmount to end it.
 */
#define FUSE_USE_VERSION 26
#define _GNU_SOURCE
#include <fuse.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <unistd.h>

static int backing = -1;
static int control = -1;

/* The path relative to the backing directory ("." for the root). */
static const char *rel(const char *path) {
  while (*path == '/') {
    path++;
  }
  return *path ? path : ".";
}

static int on(const char *name) {
  return faccessat(control, name, F_OK, 0) == 0;
}

static int manifestTemp(const char *path) {
  size_t n = strlen(path);
  const char *suffix = ".manifest.tmp";
  size_t s = strlen(suffix);
  return n >= s && strcmp(path + n - s, suffix) == 0;
}

static int injected(const char *what, const char *path, int err) {
  fprintf(stderr, "faultfs: %s %s %s\n", err == EIO ? "EIO" : "ENOSPC", what, path);
  fflush(stderr);
  return -err;
}

static int noSpace(const char *what, const char *path) {
  if (manifestTemp(path) && on("manifest-enospc")) {
    return injected(what, path, ENOSPC);
  }
  return 0;
}

static int ffs_getattr(const char *path, struct stat *st) {
  return fstatat(backing, rel(path), st, AT_SYMLINK_NOFOLLOW) == -1 ? -errno : 0;
}

static int ffs_fgetattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
  (void) path;
  return fstat(fi->fh, st) == -1 ? -errno : 0;
}

static int ffs_access(const char *path, int mask) {
  return faccessat(backing, rel(path), mask, 0) == -1 ? -errno : 0;
}

static int ffs_readlink(const char *path, char *buf, size_t size) {
  ssize_t n = readlinkat(backing, rel(path), buf, size - 1);
  if (n == -1) {
    return -errno;
  }
  buf[n] = '\0';
  return 0;
}

static int ffs_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t offset,
    struct fuse_file_info *fi) {
  (void) offset;
  (void) fi;
  int fd = openat(backing, rel(path), O_RDONLY | O_DIRECTORY);
  if (fd == -1) {
    return -errno;
  }
  DIR *d = fdopendir(fd);
  if (d == NULL) {
    int e = errno;
    close(fd);
    return -e;
  }
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    struct stat st;
    memset(&st, 0, sizeof st);
    st.st_ino = de->d_ino;
    st.st_mode = de->d_type << 12;
    if (filler(buf, de->d_name, &st, 0)) {
      break;
    }
  }
  closedir(d);
  return 0;
}

static int ffs_mknod(const char *path, mode_t mode, dev_t rdev) {
  return mknodat(backing, rel(path), mode, rdev) == -1 ? -errno : 0;
}

static int ffs_mkdir(const char *path, mode_t mode) {
  return mkdirat(backing, rel(path), mode) == -1 ? -errno : 0;
}

static int ffs_unlink(const char *path) {
  return unlinkat(backing, rel(path), 0) == -1 ? -errno : 0;
}

static int ffs_rmdir(const char *path) {
  return unlinkat(backing, rel(path), AT_REMOVEDIR) == -1 ? -errno : 0;
}

static int ffs_symlink(const char *from, const char *to) {
  return symlinkat(from, backing, rel(to)) == -1 ? -errno : 0;
}

static int ffs_rename(const char *from, const char *to) {
  return renameat(backing, rel(from), backing, rel(to)) == -1 ? -errno : 0;
}

static int ffs_link(const char *from, const char *to) {
  return linkat(backing, rel(from), backing, rel(to), 0) == -1 ? -errno : 0;
}

static int ffs_chmod(const char *path, mode_t mode) {
  return fchmodat(backing, rel(path), mode, 0) == -1 ? -errno : 0;
}

static int ffs_chown(const char *path, uid_t uid, gid_t gid) {
  return fchownat(backing, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW) == -1 ? -errno : 0;
}

static int ffs_truncate(const char *path, off_t size) {
  int fd = openat(backing, rel(path), O_WRONLY);
  if (fd == -1) {
    return -errno;
  }
  int r = ftruncate(fd, size) == -1 ? -errno : 0;
  close(fd);
  return r;
}

static int ffs_ftruncate(const char *path, off_t size, struct fuse_file_info *fi) {
  (void) path;
  return ftruncate(fi->fh, size) == -1 ? -errno : 0;
}

static int ffs_utimens(const char *path, const struct timespec ts[2]) {
  return utimensat(backing, rel(path), ts, AT_SYMLINK_NOFOLLOW) == -1 ? -errno : 0;
}

/* O_DIRECT is not passed on: the kernel's FUSE client decides it, the backing file is buffered. */
static int ffs_open(const char *path, struct fuse_file_info *fi) {
  if ((fi->flags & O_ACCMODE) != O_RDONLY) {
    int r = noSpace("open", path);
    if (r) {
      return r;
    }
  }
  int fd = openat(backing, rel(path), fi->flags & ~O_DIRECT);
  if (fd == -1) {
    return -errno;
  }
  fi->fh = fd;
  return 0;
}

static int ffs_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
  int r = noSpace("create", path);
  if (r) {
    return r;
  }
  int fd = openat(backing, rel(path), (fi->flags & ~O_DIRECT) | O_CREAT, mode);
  if (fd == -1) {
    return -errno;
  }
  fi->fh = fd;
  return 0;
}

static int ffs_read(const char *path, char *buf, size_t size, off_t offset,
    struct fuse_file_info *fi) {
  (void) path;
  ssize_t n = pread(fi->fh, buf, size, offset);
  return n == -1 ? -errno : (int) n;
}

static int ffs_write(const char *path, const char *buf, size_t size, off_t offset,
    struct fuse_file_info *fi) {
  int r = noSpace("write", path);
  if (r) {
    return r;
  }
  ssize_t n = pwrite(fi->fh, buf, size, offset);
  return n == -1 ? -errno : (int) n;
}

static int ffs_statfs(const char *path, struct statvfs *st) {
  (void) path;
  return fstatvfs(backing, st) == -1 ? -errno : 0;
}

static int ffs_flush(const char *path, struct fuse_file_info *fi) {
  (void) path;
  int fd = dup(fi->fh);
  if (fd == -1) {
    return -errno;
  }
  return close(fd) == -1 ? -errno : 0;
}

static int ffs_release(const char *path, struct fuse_file_info *fi) {
  (void) path;
  close(fi->fh);
  return 0;
}

static int ffs_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
  int r = datasync ? fdatasync(fi->fh) : fsync(fi->fh);
  if (r == -1) {
    return -errno;
  }
  return on("fsync-eio") ? injected("fsync", path, EIO) : 0;
}

static int ffs_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi) {
  (void) datasync;
  (void) fi;
  int fd = openat(backing, rel(path), O_RDONLY | O_DIRECTORY);
  if (fd == -1) {
    return -errno;
  }
  int r = fsync(fd) == -1 ? -errno : 0;
  close(fd);
  if (r) {
    return r;
  }
  return on("fsync-eio") ? injected("fsyncdir", path, EIO) : 0;
}

static int ffs_fallocate(const char *path, int mode, off_t offset, off_t length,
    struct fuse_file_info *fi) {
  int r = noSpace("fallocate", path);
  if (r) {
    return r;
  }
  return fallocate(fi->fh, mode, offset, length) == -1 ? -errno : 0;
}

static struct fuse_operations ops = {
  .getattr = ffs_getattr,
  .fgetattr = ffs_fgetattr,
  .access = ffs_access,
  .readlink = ffs_readlink,
  .readdir = ffs_readdir,
  .mknod = ffs_mknod,
  .mkdir = ffs_mkdir,
  .unlink = ffs_unlink,
  .rmdir = ffs_rmdir,
  .symlink = ffs_symlink,
  .rename = ffs_rename,
  .link = ffs_link,
  .chmod = ffs_chmod,
  .chown = ffs_chown,
  .truncate = ffs_truncate,
  .ftruncate = ffs_ftruncate,
  .utimens = ffs_utimens,
  .open = ffs_open,
  .create = ffs_create,
  .read = ffs_read,
  .write = ffs_write,
  .statfs = ffs_statfs,
  .flush = ffs_flush,
  .release = ffs_release,
  .fsync = ffs_fsync,
  .fsyncdir = ffs_fsyncdir,
  .fallocate = ffs_fallocate,
};

int main(int argc, char *argv[]) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s BACKING_DIR CONTROL_DIR MOUNTPOINT [fuse options]\n", argv[0]);
    return 2;
  }
  backing = open(argv[1], O_RDONLY | O_DIRECTORY);
  control = open(argv[2], O_RDONLY | O_DIRECTORY);
  if (backing == -1 || control == -1) {
    perror("faultfs: open backing or control directory");
    return 2;
  }
  umask(0);
  /* fuse_main gets: program, mount point, -f (foreground), then the caller's options. */
  char **args = calloc(argc + 1, sizeof *args);
  int n = 0;
  args[n++] = argv[0];
  args[n++] = argv[3];
  args[n++] = "-f";
  for (int i = 4; i < argc; i++) {
    args[n++] = argv[i];
  }
  return fuse_main(n, args, &ops, NULL);
}
