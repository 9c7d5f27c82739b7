package io.parityfs.fuse;

/**
 * Who asks: the uid and gid of the process behind one FUSE request (the binding reads them
 * from the request's context).
 */
public record Requester(long uid, long gid) {
  /** The requester of work the mount does on its own (closing files at unmount). */
  public static final Requester MOUNT = new Requester(-1, -1);
}
