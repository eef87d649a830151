#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Client side of tests/e2e/preload.sh: maps uvcuse-bufsharetest's buffer
through libuvcuse-preload.so (run it under uvcuse-run) and plays the
attacker on the buffer socket.

  preload_client.py map NODE [own|notown] [shared|private] [OFFSET] [LENGTH]
  preload_client.py syscall NODE     libv4l2's way: syscall(SYS_mmap)
  preload_client.py fork NODE        a forked child and a dup'd fd map too
  preload_client.py other            /dev/zero and anonymous maps still work
  preload_client.py hello NODE N [own|plain]
                                     prints N tokens + socket path, holds
                                     the file open until stdin closes
                                     (plain: no STREAMON, for a real node)
  preload_client.py steal PATH TOKEN presents TOKEN: prints the answer
                                     (refused: at connect, at accept, or EACCES)
Exit 0: as expected; 3: an errno (printed); 1: wrong content."""
import array, ctypes, errno, fcntl, mmap, os, socket, struct, sys

BUF_SIZE = 1280 * 720 * 2
COOKIE = 0x10000
MAGIC, ABI = 0x75637573, 1
# _IOR('u', 1, struct uvcuse_hello): 4 + 4 + 16 + 108 = 132 bytes
HELLO = (2 << 30) | (132 << 16) | (ord('u') << 8) | 1
STREAMON = 0x40045612  # _IOW('V', 18, int)


def expected(words):
    return array.array('I', (i ^ 0x5a000000 for i in range(words)))


def open_node(node, own=True):
    fd = os.open(node, os.O_RDWR)
    if own:
        fcntl.ioctl(fd, STREAMON, struct.pack('I', 1))
    return fd


def check(buf, length):
    got = array.array('I')
    got.frombytes(bytes(buf[:length]))
    if got != expected(length // 4):
        print('content differs')
        sys.exit(1)


def cmd_map(node, own='own', kind='shared', offset=COOKIE, length=BUF_SIZE):
    fd = open_node(node, own == 'own')
    flags = mmap.MAP_SHARED if kind == 'shared' else mmap.MAP_PRIVATE
    m = mmap.mmap(fd, int(length), flags=flags, offset=int(offset, 0) if isinstance(offset, str) else offset)
    check(m, int(length))
    # writes reach the daemon's memory (it logs the last word at exit)
    if int(length) == BUF_SIZE:
        m[BUF_SIZE - 4:] = struct.pack('I', 0xC0FFEE01)
        m2 = mmap.mmap(fd, BUF_SIZE, offset=COOKIE)
        if struct.unpack('I', m2[BUF_SIZE - 4:])[0] != 0xC0FFEE01:
            print('second mapping does not share the memory')
            sys.exit(1)
        m2[BUF_SIZE - 4:] = struct.pack('I', (BUF_SIZE // 4 - 1) ^ 0x5a000000)
        m2.close()
    m.close()
    print('mapped', length, 'bytes: content ok')


def cmd_syscall(node):
    fd = open_node(node)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    L = ctypes.c_long
    addr = libc.syscall(L(9), L(0), L(BUF_SIZE), L(mmap.PROT_READ), L(mmap.MAP_SHARED), L(fd), L(COOKIE))
    if addr == -1:
        e = ctypes.get_errno()
        print('syscall(SYS_mmap):', errno.errorcode.get(e, e))
        sys.exit(3)
    check(ctypes.string_at(addr, BUF_SIZE), BUF_SIZE)
    if libc.syscall(L(11), L(addr), L(BUF_SIZE)) != 0:
        print('syscall(SYS_munmap) failed')
        sys.exit(1)
    # an unknown offset answers EINVAL through syscall() too
    addr = libc.syscall(L(9), L(0), L(4096), L(mmap.PROT_READ), L(mmap.MAP_SHARED), L(fd), L(0))
    if addr != -1 or ctypes.get_errno() != errno.EINVAL:
        print('bad offset through syscall():', addr, ctypes.get_errno())
        sys.exit(1)
    print('syscall(SYS_mmap): content ok')


def cmd_fork(node):
    fd = open_node(node)
    pid = os.fork()
    if pid == 0:
        try:
            check(mmap.mmap(fd, BUF_SIZE, offset=COOKIE), BUF_SIZE)
        except OSError as e:
            print('child:', e)
            os._exit(3)
        os._exit(0)
    _, st = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(st) != 0:
        sys.exit(1)
    fd2 = os.dup(fd)
    check(mmap.mmap(fd2, BUF_SIZE, offset=COOKIE), BUF_SIZE)
    # a reused fd number on another file: the cache must notice
    os.close(fd2)
    z = os.open('/dev/zero', os.O_RDWR)
    os.dup2(z, fd2)
    mmap.mmap(fd2, 4096)
    os.close(fd2)
    os.dup2(fd, fd2)
    check(mmap.mmap(fd2, BUF_SIZE, offset=COOKIE), BUF_SIZE)
    print('forked child, dup and reused fd: content ok')


def cmd_other():
    m = mmap.mmap(-1, 1 << 20)
    m[0] = 7
    z = os.open('/dev/zero', os.O_RDWR)
    for _ in range(3):
        if mmap.mmap(z, 8192)[100] != 0:
            sys.exit(1)
    with open(sys.argv[0], 'rb') as f:
        if mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)[:2] != b'#!':
            sys.exit(1)
    print('anonymous, /dev/zero and file maps ok')


def cmd_hello(node, n, how='own'):
    fd = open_node(node, how == 'own')
    for _ in range(int(n)):
        h = bytearray(132)
        fcntl.ioctl(fd, HELLO, h)
        magic, abi = struct.unpack_from('II', h)
        assert (magic, abi) == (MAGIC, ABI), (hex(magic), abi)
        print(h[8:24].hex(), h[24:].split(b'\0')[0].decode(), flush=True)
    sys.stdin.read()


def cmd_steal(path, token):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        s.connect(path)
    except PermissionError:
        # the socket follows the node's group and mode: a user who may not
        # open the node may not connect either
        print('refused at connect: EACCES, fds 0')
        sys.exit(0)
    try:
        # a peer closed at accept may see that before it sends (EPIPE) or
        # after (an empty read, or ECONNRESET): the daemon's timing
        s.send(struct.pack('II16sQQ', MAGIC, ABI, bytes.fromhex(token), COOKIE, BUF_SIZE))
        msg, fds, _, _ = socket.recv_fds(s, 64, 1)
    except (BrokenPipeError, ConnectionResetError):
        msg, fds = b'', []
    if not msg and not fds:
        # a peer whose uid holds no token is closed at accept
        print('closed at accept, fds 0')
        sys.exit(0)
    magic, status, size = struct.unpack('IiQ', msg)
    print('status', status, errno.errorcode.get(-status, ''), 'fds', len(fds))
    sys.exit(0 if status == -errno.EACCES and not fds else 1)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    try:
        {'map': cmd_map, 'syscall': cmd_syscall, 'fork': cmd_fork, 'other': cmd_other,
         'hello': cmd_hello, 'steal': cmd_steal}[cmd](*args)
    except OSError as e:
        print(cmd + ':', errno.errorcode.get(e.errno, e.errno), e.strerror)
        sys.exit(3)


main()
