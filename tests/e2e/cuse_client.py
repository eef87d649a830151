#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Client side of tests/e2e/cuse-node.sh: drives uvcuse-cusetest's node with
raw ioctls and reads and checks every answer byte-exact.

    cuse_client.py TABLE NODE CHECK...

TABLE is `uvcuse-cusetest --ioctls` output (name, number, size), so the
ioctl numbers come from the same headers as the server's."""
import ctypes
import errno
import fcntl
import os
import select
import signal
import struct
import sys
import time

TABLE, NODE = sys.argv[1], sys.argv[2]
IOC = {}
for line in open(TABLE):
    name, num, size = line.split()
    IOC[name] = (int(num, 16), int(size))

FRAME = 600 * 1024
PATTERN = (bytes(range(251)) * (FRAME // 251 + 1))[:FRAME]
V4L2_BUF_TYPE_VIDEO_CAPTURE = 1
V4L2_MEMORY_MMAP, V4L2_MEMORY_USERPTR = 1, 2


def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def cmd(name):
    return IOC[name][0]


def arg(name):
    return bytearray(IOC[name][1])


def ioctl_err(fd, req, buf):
    """The errno of an ioctl expected to fail (0 if it succeeded)."""
    try:
        fcntl.ioctl(fd, req, buf)
    except OSError as e:
        return e.errno
    return 0


def opennode(flags=0):
    return os.open(NODE, os.O_RDWR | flags)


def querycap(fd):
    cap = arg("VIDIOC_QUERYCAP")
    fcntl.ioctl(fd, cmd("VIDIOC_QUERYCAP"), cap)
    return cap


def check_querycap():
    fd = opennode()
    cap = querycap(fd)
    name = os.path.basename(NODE)
    exp = bytearray(104)
    exp[0:8] = b"cusetest"
    exp[16:29] = b"cusetest card"
    bus = b"cuse:" + name.encode()
    exp[48:48 + len(bus)] = bus
    caps = 0x01 | 0x04000000 | 0x01000000
    struct.pack_into("<IIII", exp, 80, 0x060100, caps | 0x80000000, caps, 0)
    check(cap == exp, f"QUERYCAP bytes differ: {bytes(cap)!r}")
    os.close(fd)
    print("QUERYCAP: byte-exact")


def fmt_bytes(width, height, extra):
    f = bytearray(208)
    struct.pack_into("<I", f, 0, V4L2_BUF_TYPE_VIDEO_CAPTURE)
    # pix: width height pixelformat field bytesperline sizeimage colorspace priv ...
    struct.pack_into("<IIIIIIII", f, 8, width, height, 0x56595559, 4, 0, 0, 7, extra)
    for i in range(56, 208):
        f[i] = (i * 11) & 0xff
    return f


def check_fmt():
    fd = opennode()
    f = fmt_bytes(320, 240, 0xDEADBEEF)
    exp = bytearray(f)
    struct.pack_into("<III", exp, 8 + 12, 1, 640, 640 * 240)
    fcntl.ioctl(fd, cmd("VIDIOC_S_FMT"), f)
    check(f == exp, "S_FMT answer differs")
    g = bytearray(208)
    struct.pack_into("<I", g, 0, V4L2_BUF_TYPE_VIDEO_CAPTURE)
    fcntl.ioctl(fd, cmd("VIDIOC_G_FMT"), g)
    check(g[8:56] == exp[8:56], "G_FMT does not return what S_FMT set")
    t = fmt_bytes(100, 10, 1)
    fcntl.ioctl(fd, cmd("VIDIOC_TRY_FMT"), t)
    check(struct.unpack_from("<II", t, 8 + 16) == (200, 2000), "TRY_FMT answer")
    bad = bytearray(208)
    struct.pack_into("<I", bad, 0, 9)
    check(ioctl_err(fd, cmd("VIDIOC_S_FMT"), bad) == errno.EINVAL, "S_FMT of a bad type")
    os.close(fd)
    print("S_FMT/G_FMT/TRY_FMT: byte-exact")


class ExtControl(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("id", ctypes.c_uint32), ("size", ctypes.c_uint32),
                ("reserved2", ctypes.c_uint32), ("value", ctypes.c_int32),
                ("pad", ctypes.c_uint32)]


def ext_ctrls(fd, name, ids, values=None, controls_ptr=None, count=None):
    n = len(ids)
    arr = (ExtControl * max(n, 1))()
    for i, cid in enumerate(ids):
        arr[i].id = cid
        arr[i].size = 0
        arr[i].reserved2 = 0xA0 + i
        arr[i].value = values[i] if values else -1
        arr[i].pad = 0x55AA55AA
    ptr = ctypes.addressof(arr) if controls_ptr is None else controls_ptr
    c = bytearray(32)
    struct.pack_into("<IIIiI", c, 0, 0x00980000, n if count is None else count, 0xFFFF, 0, 0)
    struct.pack_into("<Q", c, 24, ptr)
    err = ioctl_err(fd, cmd(name), c)
    return err, c, arr


def check_ext_ctrls():
    fd = opennode()
    for n in (0, 1, 50):
        ids = [0x100 + 8 * k for k in range(n)]  # slot 0, never set
        err, c, arr = ext_ctrls(fd, "VIDIOC_G_EXT_CTRLS", ids)
        check(err == 0, f"G_EXT_CTRLS count {n}: errno {err}")
        check(struct.unpack_from("<II", c, 4) == (n, n), f"G_EXT_CTRLS count {n}: count/error_idx")
        for i, cid in enumerate(ids):
            x = arr[i]
            check((x.id, x.size, x.reserved2, x.value, x.pad) == (cid, 0, 0xA0 + i, cid * 3 + i, 0x55AA55AA),
                  f"G_EXT_CTRLS control {i} of {n}")
    err, c, arr = ext_ctrls(fd, "VIDIOC_S_EXT_CTRLS", [1, 2, 3], [1001, -1002, 1003])
    check(err == 0, "S_EXT_CTRLS")
    err, c, arr = ext_ctrls(fd, "VIDIOC_G_EXT_CTRLS", [1, 2, 3])
    check([arr[i].value for i in range(3)] == [1001, -1002, 1003], "G after S_EXT_CTRLS")
    # a failing control: EINVAL, and error_idx still reaches the caller
    err, c, arr = ext_ctrls(fd, "VIDIOC_TRY_EXT_CTRLS", [1, 2, 0, 4])
    check(err == errno.EINVAL, f"TRY_EXT_CTRLS with id 0: errno {err}")
    check(struct.unpack_from("<I", c, 8)[0] == 2, "error_idx copied out on error")
    err, c, arr = ext_ctrls(fd, "VIDIOC_G_EXT_CTRLS", [1], count=1025)
    check(err == errno.EINVAL, f"count 1025: errno {err}")
    err, c, arr = ext_ctrls(fd, "VIDIOC_G_EXT_CTRLS", [1], controls_ptr=16)
    check(err == errno.EFAULT, f"controls at a bad address: errno {err}")
    os.close(fd)
    print("G/S/TRY_EXT_CTRLS: 0/1/50 controls byte-exact, error_idx on error, EINVAL above 1024, EFAULT")


def buffer_bytes(index, memory, userptr=0, length=0):
    b = bytearray(88)
    struct.pack_into("<II", b, 0, index, V4L2_BUF_TYPE_VIDEO_CAPTURE)
    struct.pack_into("<I", b, 60, memory)
    struct.pack_into("<Q", b, 64, userptr)
    struct.pack_into("<I", b, 72, length)
    return b


def check_userptr():
    fd = opennode()
    n = 100 * 1024
    mem = (ctypes.c_ubyte * n)()
    b = buffer_bytes(3, V4L2_MEMORY_USERPTR, ctypes.addressof(mem), n)
    fcntl.ioctl(fd, cmd("VIDIOC_DQBUF"), b)
    seq = struct.unpack_from("<I", b, 56)[0]
    check(struct.unpack_from("<I", b, 8)[0] == n, "DQBUF USERPTR bytesused")
    got = bytes(mem)
    exp = bytes(((i * 7 + seq) & 0xff) for i in range(n))
    check(got == exp, "USERPTR data differs")
    # one ioctl moves at most 128 KiB out: the argument plus this is more
    big = (ctypes.c_ubyte * (128 * 1024))()
    b = buffer_bytes(3, V4L2_MEMORY_USERPTR, ctypes.addressof(big), 128 * 1024)
    check(ioctl_err(fd, cmd("VIDIOC_DQBUF"), b) == errno.E2BIG, "128 KiB USERPTR: E2BIG")
    b = buffer_bytes(3, V4L2_MEMORY_USERPTR, 16, 4096)
    check(ioctl_err(fd, cmd("VIDIOC_DQBUF"), b) == errno.EFAULT, "USERPTR at a bad address: EFAULT")
    # the server still answers on this file
    querycap(fd)
    os.close(fd)
    print("DQBUF USERPTR: 100 KiB written byte-exact; E2BIG at 128 KiB; EFAULT")


def check_uvc_query():
    fd = opennode()
    data = (ctypes.c_ubyte * 11)()
    q = bytearray(16)
    struct.pack_into("<BBBxHxxQ", q, 0, 4, 2, 0x81, 11, ctypes.addressof(data))
    fcntl.ioctl(fd, cmd("UVCIOC_CTRL_QUERY"), q)
    check(bytes(data) == bytes(i ^ 0xA5 for i in range(11)), "UVC GET_CUR data")
    for i in range(11):
        data[i] = i ^ 0x5A
    struct.pack_into("<B", q, 2, 0x01)
    fcntl.ioctl(fd, cmd("UVCIOC_CTRL_QUERY"), q)
    data[3] ^= 1
    check(ioctl_err(fd, cmd("UVCIOC_CTRL_QUERY"), q) == errno.EBADMSG, "UVC SET_CUR data read in")
    os.close(fd)
    print("UVCIOC_CTRL_QUERY: data in and out")


def check_enotty():
    fd = opennode()
    tuner = (3 << 30) | (84 << 16) | (ord("V") << 8) | 29  # VIDIOC_G_TUNER
    check(ioctl_err(fd, tuner, bytearray(84)) == errno.ENOTTY, "G_TUNER: ENOTTY")
    check(ioctl_err(fd, (ord("Q") << 8) | 1, 0) == errno.ENOTTY, "_IO('Q', 1): ENOTTY")
    check(ioctl_err(fd, cmd("VIDIOC_ENUMINPUT"), arg("VIDIOC_ENUMINPUT")) == errno.ENOTTY,
          "unimplemented table ioctl: ENOTTY")
    check(ioctl_err(fd, cmd("VIDIOC_QUERYCAP"), 8) == errno.EFAULT, "QUERYCAP to a bad address: EFAULT")
    fcntl.ioctl(fd, cmd("VIDIOC_LOG_STATUS"), 0)
    querycap(fd)
    os.close(fd)
    print("ENOTTY for unknown ioctls, EFAULT for bad pointers, server still up")


def parked(fd):
    n = bytearray(4)
    fcntl.ioctl(fd, cmd("VIDIOC_G_INPUT"), n)
    return struct.unpack("<i", n)[0]


def blocked(pid, want=1, timeout=20):
    """True once the server holds want parked requests and child pid still
    runs (a slow guest may take long to start the child's request)."""
    fd = opennode()
    end = time.time() + timeout
    while parked(fd) < want and time.time() < end:
        time.sleep(0.02)
    n = parked(fd)
    os.close(fd)
    return n >= want and os.waitpid(pid, os.WNOHANG) == (0, 0)


def reap(pid, timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        p, status = os.waitpid(pid, os.WNOHANG)
        if p:
            return status
        time.sleep(0.02)
    fail(f"child {pid} still blocked after {timeout}s")


def check_dqbuf_parked():
    # released by another client's QBUF
    pid = os.fork()
    if pid == 0:
        fd = opennode()
        b = buffer_bytes(0, V4L2_MEMORY_MMAP)
        fcntl.ioctl(fd, cmd("VIDIOC_DQBUF"), b)
        os._exit(0 if struct.unpack_from("<I", b, 8)[0] == 4096 else 1)
    check(blocked(pid), "DQBUF did not block")
    fd = opennode()
    fcntl.ioctl(fd, cmd("VIDIOC_QBUF"), buffer_bytes(0, V4L2_MEMORY_MMAP))
    check(os.waitstatus_to_exitcode(reap(pid)) == 0, "parked DQBUF answer")
    # released by the server's timer
    t0 = time.monotonic()
    b = buffer_bytes(1, V4L2_MEMORY_MMAP)
    fcntl.ioctl(fd, cmd("VIDIOC_DQBUF"), b)
    dt = time.monotonic() - t0
    check(0.15 < dt < 3, f"timer-released DQBUF after {dt:.3f}s")
    nb = opennode(os.O_NONBLOCK)
    check(ioctl_err(nb, cmd("VIDIOC_DQBUF"), buffer_bytes(0, V4L2_MEMORY_MMAP)) == errno.EAGAIN,
          "non-blocking DQBUF: EAGAIN")
    os.close(nb)
    os.close(fd)
    print(f"DQBUF parked until a second client's QBUF, and until a timer ({dt * 1000:.0f} ms); EAGAIN non-blocking")


def streamon(fd):
    fcntl.ioctl(fd, cmd("VIDIOC_STREAMON"), struct.pack("<I", 1))


def read_frame(fd):
    buf = bytearray(1024 * 1024)
    n = os.readv(fd, [buf])
    return bytes(buf[:n])


def check_read():
    fd = opennode()
    # a blocking read parked until data exists
    pid = os.fork()
    if pid == 0:
        f2 = opennode()
        data = read_frame(f2)
        os._exit(0 if data == PATTERN else 1)
    check(blocked(pid), "read did not block")
    streamon(fd)
    check(os.waitstatus_to_exitcode(reap(pid)) == 0, "parked read: 600 KiB pattern")
    nb = opennode(os.O_NONBLOCK)
    try:
        os.read(nb, 4096)
        fail("non-blocking read without data succeeded")
    except BlockingIOError:
        pass
    # poll wakes up when a frame becomes ready
    p = select.poll()
    p.register(nb, select.POLLIN)
    check(p.poll(100) == [], "poll ready without data")
    pid = os.fork()
    if pid == 0:
        time.sleep(0.3)
        f2 = opennode()
        streamon(f2)
        os._exit(0)
    t0 = time.monotonic()
    ev = p.poll(5000)
    dt = time.monotonic() - t0
    check(ev and ev[0][1] & select.POLLIN, "poll not woken")
    reap(pid)
    check(read_frame(nb) == PATTERN, "read after poll")
    # small reads: one chunk each, each read() a new frame
    streamon(fd)
    check(os.read(fd, 1000) == PATTERN[:1000], "short read")
    os.close(nb)
    os.close(fd)
    print(f"read: 600 KiB byte-exact (5 chunks), parked until data, EAGAIN non-blocking, poll woken after {dt * 1000:.0f} ms")


def kill_blocked(child):
    """Forks child(), waits until its request is parked, SIGKILLs it and
    returns how long it took to die."""
    pid = os.fork()
    if pid == 0:
        child()
        os._exit(0)
    check(blocked(pid), "the request did not park")
    t0 = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    status = reap(pid, 10)
    check(os.WIFSIGNALED(status), "killed child")
    return time.monotonic() - t0


def check_sigkill():
    def reader():
        os.read(opennode(), 4096)

    def dqbuf():
        fcntl.ioctl(opennode(), cmd("VIDIOC_DQBUF"), buffer_bytes(0, V4L2_MEMORY_MMAP))

    t_read = kill_blocked(reader)
    t_dqbuf = kill_blocked(dqbuf)
    # the next client is served
    fd = opennode()
    querycap(fd)
    check(parked(fd) == 0, "requests left parked")
    streamon(fd)
    check(read_frame(fd) == PATTERN, "read after a killed reader")
    os.close(fd)
    print(f"SIGKILL while blocked: in read() dead after {t_read * 1000:.0f} ms, in DQBUF after "
          f"{t_dqbuf * 1000:.0f} ms; the next client is served")


def check_many():
    fds = [opennode() for _ in range(100)]
    for fd in fds:
        cap = querycap(fd)
        check(cap[:8] == b"cusetest", "QUERYCAP on one of 100 files")
    for fd in fds:
        os.close(fd)
    print("100 simultaneous opens: all answered")


def bench():
    fd = opennode()
    req = cmd("VIDIOC_QUERYCAP")
    cap = arg("VIDIOC_QUERYCAP")
    n = 3000
    for _ in range(100):
        fcntl.ioctl(fd, req, cap)
    t0 = time.perf_counter()
    for _ in range(n):
        fcntl.ioctl(fd, req, cap)
    us = (time.perf_counter() - t0) / n * 1e6
    # the same loop on a kernel ioctl for scale (the python overhead included)
    with open("/dev/null", "rb") as null:
        fio = bytearray(4)
        t0 = time.perf_counter()
        for _ in range(n):
            try:
                fcntl.ioctl(null.fileno(), 0x541B, fio)  # FIONREAD: ENOTTY on /dev/null
            except OSError:
                pass
        kus = (time.perf_counter() - t0) / n * 1e6
    buf = bytearray(FRAME)
    frames = 150
    os.readv(fd, [buf])
    t0 = time.perf_counter()
    total = 0
    for _ in range(frames):
        total += os.readv(fd, [buf])
    dt = time.perf_counter() - t0
    check(bytes(buf) == PATTERN, "bench frame content")
    os.close(fd)
    print(f"BENCH QUERYCAP {us:.1f} us per ioctl (python loop on a kernel ioctl: {kus:.1f} us); "
          f"read {total / dt / 1e6:.0f} MB/s ({frames} reads of {FRAME} bytes)")


CHECKS = {
    "querycap": check_querycap, "fmt": check_fmt, "ext": check_ext_ctrls,
    "userptr": check_userptr, "uvcquery": check_uvc_query, "enotty": check_enotty,
    "dqbuf": check_dqbuf_parked, "read": check_read, "sigkill": check_sigkill,
    "many": check_many, "bench": bench,
}
for name in sys.argv[3:]:
    CHECKS[name]()
