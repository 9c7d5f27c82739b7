"""One rank of TorchBenchmark: torch.save or torch.load of one shard of a state dict.

    torch_checkpoint.py save|load PATH|- RANK SHARD_MIB GO_FILE

The shard is SHARD_MIB MiB of float32 tensors of 32 MiB each, generated from seeds of RANK, so
every side saves the same bytes and a load can be compared with them. The rank builds its data
(not timed), prints "ready" on stderr, waits until GO_FILE exists, then:

  save: torch.save to PATH, flush and os.fsync (a durable checkpoint shard, as PyTorch's
        distributed checkpoint writes it); PATH "-" writes the serialized shard to stdout
        instead, for the Java client to store.
  load: torch.load from PATH ("-": from stdin, sent by the Java client), then compares every
        tensor with the generated one.

It prints "done EPOCH_SECONDS BUSY_SECONDS" on stderr when the save or load (before the
comparison) ended, BUSY_SECONDS being the machine's busy CPU time then (/proc/stat, as the
benchmark reads it), and exits 0, or 1 when a tensor differs.
"""
import io
import os
import sys
import time

import torch

TENSOR_MIB = 32


def busy():
    """The machine's busy CPU seconds: /proc/stat's user, nice, system, irq, softirq, steal."""
    with open("/proc/stat") as f:
        t = f.readline().split()
    return sum(int(t[i]) for i in (1, 2, 3, 6, 7, 8)) / 100.0


def done():
    sys.stderr.write("done %.6f %.2f\n" % (time.time(), busy()))
    sys.stderr.flush()


def shard(rank, mib):
    out = {}
    for i in range(max(1, mib // TENSOR_MIB)):
        g = torch.Generator().manual_seed(rank * 100003 + i)
        out["layer%03d.weight" % i] = torch.rand(TENSOR_MIB * 1024 * 1024 // 4, generator=g)
    return out


def main():
    mode, path, rank, mib, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    expected = shard(rank, mib)
    sys.stderr.write("ready\n")
    sys.stderr.flush()
    while not os.path.exists(go):
        time.sleep(0.002)
    if mode == "save":
        if path == "-":
            buf = io.BytesIO()
            torch.save(expected, buf)
            sys.stdout.buffer.write(buf.getbuffer())
            sys.stdout.buffer.flush()
            sys.stdout.close()
        else:
            with open(path, "wb") as f:
                torch.save(expected, f)
                f.flush()
                os.fsync(f.fileno())
        done()
        return 0
    if path == "-":
        loaded = torch.load(io.BytesIO(sys.stdin.buffer.read()))
    else:
        with open(path, "rb") as f:
            loaded = torch.load(f)
    done()
    if loaded.keys() != expected.keys():
        sys.stderr.write("rank %d: keys differ\n" % rank)
        return 1
    for k, v in expected.items():
        if not torch.equal(v, loaded[k]):
            sys.stderr.write("rank %d: tensor %s differs\n" % (rank, k))
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
