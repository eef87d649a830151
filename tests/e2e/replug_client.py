#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Client of tests/e2e/daemon-replug.sh: what a streaming file sees while
its camera is away.

    replug_client.py NODE VCAM_PID
    replug_client.py NODE VCAM_PID gone

Streams MMAP buffers (never mapped: DQBUF/QBUF only) from a non-blocking
file subscribed to V4L2_EVENT_SOURCE_CHANGE, unplugs the camera (SIGUSR1 to
the vcam), and checks: the event comes, no POLLIN and DQBUF EAGAIN while
the camera is away; after the replug (SIGUSR2) the event again, then frames
whose sequence numbers jump; a buffer the app held across the unplug and
queued while the camera was away fills again like the others. Then a
second unplug, at which, as GStreamer does at the event, the stream stops
and starts again after an S_FMT, which must work with the camera away.
With "gone" (a daemon run with
--exit-on-unplug): a streaming file and an idle one, the camera unplugged;
poll() gives POLLERR and POLLHUP, and every call on either file answers
ENODEV, as on a kernel node whose camera left; so does a new open(). The
files are closed at the end. Prints one line per check; exits 1 on the
first that fails.
"""
import errno
import fcntl
import os
import select
import signal
import struct
import sys
import time

VIDIOC_QUERYCAP = 0x80685600
VIDIOC_G_CTRL = 0xC008561B
V4L2_CID_BRIGHTNESS = 0x00980900
VIDIOC_S_FMT = 0xC0D05605
VIDIOC_REQBUFS = 0xC0145608
VIDIOC_QBUF = 0xC058560F
VIDIOC_DQBUF = 0xC0585611
VIDIOC_STREAMON = 0x40045612
VIDIOC_STREAMOFF = 0x40045613
VIDIOC_DQEVENT = 0x80885659
VIDIOC_SUBSCRIBE_EVENT = 0x4020565A
CAPTURE, MMAP = 1, 1
EVENT_SOURCE_CHANGE, SRC_CH_RESOLUTION = 5, 1


def buf(index=0):
    b = bytearray(88)
    struct.pack_into("=II", b, 0, index, CAPTURE)
    struct.pack_into("=I", b, 60, MMAP)
    return b


def dqbuf_held(fd):
    """(index, sequence) of a dequeued buffer the caller queues again, or None."""
    b = buf()
    try:
        fcntl.ioctl(fd, VIDIOC_DQBUF, b)
    except OSError as e:
        if e.errno == errno.EAGAIN:
            return None
        raise
    return struct.unpack_from("=I", b, 0)[0], struct.unpack_from("=I", b, 56)[0]


def dqbuf(fd):
    """The sequence number of a dequeued buffer (queued again), or None."""
    got = dqbuf_held(fd)
    if got is None:
        return None
    fcntl.ioctl(fd, VIDIOC_QBUF, buf(got[0]))
    return got[1]


def wait(fd, events, seconds):
    p = select.poll()
    p.register(fd, events)
    return [ev for _, ev in p.poll(seconds * 1000)]


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        sys.exit(1)


def event(fd, seconds):
    got = wait(fd, select.POLLPRI, seconds)
    check(bool(got) and got[0] & select.POLLPRI, "POLLPRI within %d s" % seconds)
    ev = bytearray(136)
    fcntl.ioctl(fd, VIDIOC_DQEVENT, ev)
    kind, changes = struct.unpack_from("=I", ev, 0)[0], struct.unpack_from("=I", ev, 8)[0]
    check(kind == EVENT_SOURCE_CHANGE and changes == SRC_CH_RESOLUTION,
          "V4L2_EVENT_SOURCE_CHANGE, changes %d" % changes)


def stream(fd):
    fcntl.ioctl(fd, VIDIOC_REQBUFS, struct.pack("=III8x", 4, CAPTURE, MMAP))
    for i in range(4):
        fcntl.ioctl(fd, VIDIOC_QBUF, buf(i))
    fcntl.ioctl(fd, VIDIOC_STREAMON, struct.pack("=I", CAPTURE))


def errno_of(call):
    """The errno name a call fails with, or "ok"."""
    try:
        call()
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    return "ok"


def gone(node, vcam):
    fd = os.open(node, os.O_RDWR | os.O_NONBLOCK)
    idle = os.open(node, os.O_RDWR)
    stream(fd)
    deadline = time.monotonic() + 10
    frames = 0
    while time.monotonic() < deadline and frames < 10:
        wait(fd, select.POLLIN, 1)
        frames += dqbuf(fd) is not None
    check(frames == 10, "streaming before the unplug (%d frames)" % frames)
    os.kill(vcam, signal.SIGUSR1)
    deadline = time.monotonic() + 10
    got = 0
    while time.monotonic() < deadline and not got & select.POLLERR:
        for ev in wait(fd, select.POLLIN | select.POLLPRI, 1):
            got = ev
        if not got & select.POLLERR:
            try:  # frames done before the unplug
                while dqbuf(fd) is not None:
                    pass
            except OSError:  # the unplug came between poll() and DQBUF
                pass
    check(got & (select.POLLERR | select.POLLHUP) == select.POLLERR | select.POLLHUP,
          "poll() gives POLLERR and POLLHUP after the unplug (0x%x)" % got)
    calls = {
        "DQBUF": lambda: fcntl.ioctl(fd, VIDIOC_DQBUF, buf()),
        "QUERYCAP": lambda: fcntl.ioctl(fd, VIDIOC_QUERYCAP, bytearray(104)),
        "the idle file's QUERYCAP": lambda: fcntl.ioctl(idle, VIDIOC_QUERYCAP, bytearray(104)),
        "the idle file's G_CTRL": lambda: fcntl.ioctl(
            idle, VIDIOC_G_CTRL, struct.pack("=Ii", V4L2_CID_BRIGHTNESS, 0)),
        "the idle file's read()": lambda: os.read(idle, 4096),
        "a new open()": lambda: os.close(os.open(node, os.O_RDWR)),
    }
    for what, call in calls.items():
        e = errno_of(call)
        check(e == "ENODEV", "%s: %s" % (what, e))
    os.close(fd)
    os.close(idle)


def main():
    node, vcam = sys.argv[1], int(sys.argv[2])
    if sys.argv[3:] == ["gone"]:
        gone(node, vcam)
        return
    fd = os.open(node, os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, VIDIOC_SUBSCRIBE_EVENT, struct.pack("=III20x", EVENT_SOURCE_CHANGE, 0, 0))
    stream(fd)
    last = None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and (last is None or last < 30):
        wait(fd, select.POLLIN, 1)
        seq = dqbuf(fd)
        last = seq if seq is not None else last
    check(last is not None and 30 <= last <= 60,
          "streaming before the unplug, from sequence 0 (now %s)" % last)
    # one buffer kept by the app across the unplug, queued while the camera
    # is away
    got = wait(fd, select.POLLIN, 2)
    held = dqbuf_held(fd)
    check(held is not None, "a buffer to hold")
    last = held[1]

    os.kill(vcam, signal.SIGUSR1)
    event(fd, 5)
    while True:  # frames done before the unplug
        seq = dqbuf(fd)
        if seq is None:
            break
        last = seq
    fcntl.ioctl(fd, VIDIOC_QBUF, buf(held[0]))
    got = wait(fd, select.POLLIN, 2)
    check(not got, "no POLLIN for 2 s while the camera is away")
    check(dqbuf(fd) is None, "DQBUF answers EAGAIN while the camera is away")

    os.kill(vcam, signal.SIGUSR2)
    event(fd, 15)
    got = wait(fd, select.POLLIN, 10)
    check(bool(got), "POLLIN within 10 s of the replug")
    seq = dqbuf(fd)
    check(seq is not None and seq > last + 30,
          "first sequence after the replug %s, last before %d" % (seq, last))
    # every buffer comes back, the one queued while the camera was away too
    seen = set()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and len(seen) < 4:
        wait(fd, select.POLLIN, 1)
        got = dqbuf_held(fd)
        if got:
            seen.add(got[0])
            fcntl.ioctl(fd, VIDIOC_QBUF, buf(got[0]))
    check(len(seen) == 4, "all 4 buffers fill after the replug (%s)" % sorted(seen))

    # What GStreamer's v4l2src does at the event: the stream again, in the
    # format it negotiates; S_FMT needs the camera's probe control.
    os.kill(vcam, signal.SIGUSR1)
    event(fd, 5)
    fcntl.ioctl(fd, VIDIOC_STREAMOFF, struct.pack("=I", CAPTURE))
    fcntl.ioctl(fd, VIDIOC_REQBUFS, struct.pack("=III8x", 0, CAPTURE, MMAP))
    fmt = struct.pack("=I4xIII", CAPTURE, 640, 480,
                      struct.unpack("=I", b"YUYV")[0]).ljust(208, b"\0")
    e = errno_of(lambda: fcntl.ioctl(fd, VIDIOC_S_FMT, fmt))
    check(e == "ok", "S_FMT YUYV 640x480 while the camera is away: %s" % e)
    stream(fd)
    got = wait(fd, select.POLLIN, 2)
    check(not got, "no POLLIN for 2 s after STREAMON while the camera is away")
    os.kill(vcam, signal.SIGUSR2)
    event(fd, 15)
    got = wait(fd, select.POLLIN, 10)
    check(bool(got), "POLLIN within 10 s of the replug")
    seq = dqbuf(fd)
    # the stream that started while the camera was away counts from 0 and
    # lost the frames of the 2 s without POLLIN, at least
    check(seq is not None and seq >= 30,
          "first sequence after the replug %s (a new stream since the unplug)" % seq)
    fcntl.ioctl(fd, VIDIOC_STREAMOFF, struct.pack("=I", CAPTURE))
    os.close(fd)


if __name__ == "__main__":
    main()
