#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Client of tests/e2e/daemon-share.sh: a process that scribbles on every
buffer it maps while other processes stream the same camera.

    share_client.py garbage NODE SECONDS

Run under uvcuse-run (mmap() of the node goes through the preload
library). Streams four MMAP buffers in the format the node gives (G_FMT:
the running stream's), maps them all, and for SECONDS writes garbage into
every one of them, the queued ones too (those the daemon fills), between
each DQBUF and QBUF. Prints the frames it dequeued; exits 1 when it got
none. Its own frames are garbage; the other processes' must not be.
"""
import fcntl
import mmap
import os
import select
import struct
import sys
import time

VIDIOC_REQBUFS = 0xC0145608
VIDIOC_QUERYBUF = 0xC0585609
VIDIOC_QBUF = 0xC058560F
VIDIOC_DQBUF = 0xC0585611
VIDIOC_STREAMON = 0x40045612
VIDIOC_STREAMOFF = 0x40045613
CAPTURE, MMAP = 1, 1
COUNT = 4


def buf(index=0):
    b = bytearray(88)
    struct.pack_into("=II", b, 0, index, CAPTURE)
    struct.pack_into("=I", b, 60, MMAP)
    return b


def garbage(node, seconds):
    fd = os.open(node, os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, VIDIOC_REQBUFS, struct.pack("=III8x", COUNT, CAPTURE, MMAP))
    maps = []
    for i in range(COUNT):
        b = buf(i)
        fcntl.ioctl(fd, VIDIOC_QUERYBUF, b)
        offset = struct.unpack_from("=I", b, 64)[0]
        length = struct.unpack_from("=I", b, 72)[0]
        maps.append(mmap.mmap(fd, length, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE,
                              offset=offset))
        fcntl.ioctl(fd, VIDIOC_QBUF, b)
    fcntl.ioctl(fd, VIDIOC_STREAMON, struct.pack("=I", CAPTURE))
    junk = os.urandom(1 << 16)
    frames = 0
    deadline = time.monotonic() + seconds
    p = select.poll()
    p.register(fd, select.POLLIN)
    while time.monotonic() < deadline:
        p.poll(1000)
        b = buf()
        try:
            fcntl.ioctl(fd, VIDIOC_DQBUF, b)
        except BlockingIOError:
            continue
        frames += 1
        for m in maps:  # queued ones too: the daemon may be writing them
            for off in range(0, len(m), len(junk)):
                n = min(len(junk), len(m) - off)
                m[off:off + n] = junk[:n]
        fcntl.ioctl(fd, VIDIOC_QBUF, b)
    fcntl.ioctl(fd, VIDIOC_STREAMOFF, struct.pack("=I", CAPTURE))
    for m in maps:
        m.close()
    os.close(fd)
    print("garbage writer: %d frames dequeued, every buffer overwritten after each" % frames)
    return 0 if frames else 1


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "garbage":
        return garbage(sys.argv[2], float(sys.argv[3]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
