#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Clients of tests/e2e/daemon-stall.sh.

    stall_client.py gctrl NODE [INTERRUPT_S]  VIDIOC_G_CTRL brightness; prints
                                              "start end result" (result: the
                                              value or an errno name); with
                                              INTERRUPT_S a signal interrupts it
    stall_client.py sctrl NODE [INTERRUPT_S]  VIDIOC_S_CTRL brightness to 40; prints
                                              "start end result" (result: "ok" or
                                              an errno name)
    stall_client.py xuget NODE [INTERRUPT_S [MARK]]  the same with
                                              UVCIOC_CTRL_QUERY GET_CUR of the
                                              vcam's extension unit test pattern
                                              (never cached); MARK: a file made
                                              just before the ioctl
    stall_client.py stall NODE SECONDS AT OUT read() frames for SECONDS, their
                                              times into OUT; from a second
                                              thread, AT s after the start, the
                                              xuget request; prints its "start
                                              end result" (one clock for both)
    stall_client.py rates TIMES T0 T1         frames/s before [T0, T1) and during it
    stall_client.py beside NODE WHAT DELAY_S  WHAT (sfmt: S_FMT MJPG 640x480;
                                              streamon: STREAMON of 2 MMAP
                                              buffers) on one file, and DELAY_S/4
                                              into it VIDIOC_QUERYCAP on another;
                                              prints "seconds result ref during":
                                              WHAT's time and answer, QUERYCAP's
                                              time before WHAT (the best of 5) and
                                              while WHAT waits
"""
import ctypes
import errno
import fcntl
import os
import signal
import struct
import sys
import threading
import time

VIDIOC_G_CTRL = 0xC008561B  # _IOWR('V', 27, struct v4l2_control)
VIDIOC_S_CTRL = 0xC008561C  # _IOWR('V', 28, struct v4l2_control)
UVCIOC_CTRL_QUERY = 0xC0107521  # _IOWR('u', 0x21, struct uvc_xu_control_query)
VIDIOC_QUERYCAP = 0x80685600  # _IOR('V', 0, struct v4l2_capability)
VIDIOC_S_FMT = 0xC0D05605  # _IOWR('V', 5, struct v4l2_format)
VIDIOC_REQBUFS = 0xC0145608  # _IOWR('V', 8, struct v4l2_requestbuffers)
VIDIOC_QBUF = 0xC058560F  # _IOWR('V', 15, struct v4l2_buffer)
VIDIOC_STREAMON = 0x40045612  # _IOW('V', 18, int)
VIDIOC_STREAMOFF = 0x40045613
BUF_TYPE_CAPTURE, MEMORY_MMAP = 1, 1
V4L2_CID_BRIGHTNESS = 0x00980900
XU_UNIT, XU_TEST_PATTERN, UVC_GET_CUR = 3, 2, 0x81


class Interrupted(Exception):
    pass


def g_ctrl(fd):
    arg = fcntl.ioctl(fd, VIDIOC_G_CTRL, struct.pack("=Ii", V4L2_CID_BRIGHTNESS, 0))
    return str(struct.unpack("=Ii", arg)[1])


def s_ctrl(fd):
    fcntl.ioctl(fd, VIDIOC_S_CTRL, struct.pack("=Ii", V4L2_CID_BRIGHTNESS, 40))
    return "ok"


def xu_get(fd):
    data = ctypes.create_string_buffer(2)
    q = struct.pack("=BBBxHxxQ", XU_UNIT, XU_TEST_PATTERN, UVC_GET_CUR, 2,
                    ctypes.addressof(data))
    fcntl.ioctl(fd, UVCIOC_CTRL_QUERY, q)
    return str(data.raw[0] | data.raw[1] << 8)


def request(what, node, interrupt_s, mark=None):
    fd = os.open(node, os.O_RDWR)
    if interrupt_s:
        def on_alarm(signum, frame):
            raise Interrupted()
        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, interrupt_s)
    start = time.monotonic()
    if mark:
        open(mark, "w").close()
    try:
        result = what(fd)
    except Interrupted:
        result = "EINTR"
    except OSError as e:
        result = errno.errorcode.get(e.errno, str(e.errno))
    end = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, 0)
    os.close(fd)
    return "%.6f %.6f %s" % (start, end, result)


def stall(node, seconds, at, out):
    """One client streaming through read() while another of its threads
    (its own open file, as another app) makes the slow request."""
    fd = os.open(node, os.O_RDWR)
    buf = bytearray(4 << 20)
    start = time.monotonic()
    result = []

    def slow():
        time.sleep(at)
        result.append(request(xu_get, node, 0))

    t = threading.Thread(target=slow)
    t.start()
    times = []
    while time.monotonic() < start + seconds:
        if os.readv(fd, [buf]) > 0:
            times.append(time.monotonic())
    t.join()
    os.close(fd)
    with open(out, "w") as f:
        f.writelines("%.6f\n" % x for x in times)
    print(result[0])


def querycap(fd):
    start = time.monotonic()
    fcntl.ioctl(fd, VIDIOC_QUERYCAP, bytes(104))
    return time.monotonic() - start


def beside(node, what, delay):
    """A request that waits for a slow camera, and another file's QUERYCAP
    meanwhile (bytes arguments: the ioctl releases the GIL)."""
    fa = os.open(node, os.O_RDWR)
    fb = os.open(node, os.O_RDWR)
    ref = min(querycap(fb) for _ in range(5))
    if what == "sfmt":
        arg = struct.pack("=I4xIII", BUF_TYPE_CAPTURE, 640, 480,
                          struct.unpack("=I", b"MJPG")[0]).ljust(208, b"\0")
        cmd = VIDIOC_S_FMT
    else:
        fcntl.ioctl(fa, VIDIOC_REQBUFS, struct.pack("=III8x", 2, BUF_TYPE_CAPTURE, MEMORY_MMAP))
        for i in range(2):
            b = bytearray(88)
            struct.pack_into("=II", b, 0, i, BUF_TYPE_CAPTURE)
            struct.pack_into("=I", b, 60, MEMORY_MMAP)
            fcntl.ioctl(fa, VIDIOC_QBUF, bytes(b))
        arg = struct.pack("=I", BUF_TYPE_CAPTURE)
        cmd = VIDIOC_STREAMON
    started = threading.Event()
    out = {}

    def slow():
        start = time.monotonic()
        started.set()
        try:
            fcntl.ioctl(fa, cmd, arg)
            out["res"] = "ok"
        except OSError as e:
            out["res"] = errno.errorcode.get(e.errno, str(e.errno))
        out["t"] = time.monotonic() - start

    t = threading.Thread(target=slow)
    t.start()
    started.wait()
    time.sleep(delay / 4)
    during = querycap(fb)
    t.join()
    if what == "streamon":
        fcntl.ioctl(fa, VIDIOC_STREAMOFF, arg)
    os.close(fa)
    os.close(fb)
    print("%.3f %s %.4f %.4f" % (out["t"], out["res"], ref, during))


def rates(path, t0, t1):
    """The stall's rate against the 3 s before it, each second of those
    apart: the noise of this run. Prints before, noise, during (frames/s)."""
    times = [float(line) for line in open(path)]
    seconds = [sum(1 for t in times if t0 - k - 1 <= t < t0 - k) for k in range(3)]
    before = sum(seconds) / 3.0
    noise = max(seconds) - min(seconds)
    during = sum(1 for t in times if t0 <= t < t1) / (t1 - t0)
    print("%.2f %d %.2f" % (before, noise, during))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "stall":
        stall(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5])
    elif mode in ("gctrl", "sctrl", "xuget"):
        what = {"gctrl": g_ctrl, "sctrl": s_ctrl, "xuget": xu_get}[mode]
        print(request(what, sys.argv[2],
                      float(sys.argv[3]) if len(sys.argv) > 3 else 0,
                      sys.argv[4] if len(sys.argv) > 4 else None))
    elif mode == "beside":
        beside(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    elif mode == "rates":
        rates(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
    else:
        sys.exit("unknown mode " + mode)
