/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libuvcuse-preload.so: what CUSE cannot do for uvcuse's nodes.
 *
 * - mmap of a uvcuse node's fd asks the daemon for the buffer's memfd
 *   (include/uvcuse/uvcuse.h: UVCUSE_IOC_HELLO on the fd, then the buffer
 *   socket) and maps that instead (CUSE has no mmap).
 * - DQBUF goes as UVCUSE_IOC_DQBUF_STAGED: a USERPTR frame is fetched from
 *   the daemon's staging memfd and pread() into the app's pointer (a CUSE
 *   ioctl reply carries at most 128 KiB; pread answers EFAULT for a bad
 *   pointer where a memcpy would crash). A 32-bit build does it for
 *   programs built with either time width, and interposes glibc's
 *   __ioctl_time64 and __fcntl_time64 too.
 * - VIDIOC_EXPBUF answers a dma-buf the daemon makes over the buffer's
 *   memory (/dev/udmabuf), passed over the buffer socket.
 * - fcntl(F_SETFL) and FIONBIO tell the daemon the new O_NONBLOCK (CUSE
 *   passes file flags only with open and read, not with ioctls).
 * - QBUF/DQBUF take the fast path (fastpath.h), and so does poll() of a
 *   node fd for POLLIN: answered from the ring, or waited for on its
 *   doorbell, without CUSE.
 * Everything else goes to libc at once.
 *
 * Safe in every process (/etc/ld.so.preload): a constructor only looks up
 * libc's functions; anonymous and regular-file mappings cost one test and
 * an indirect call, other ioctls and fcntls a compare; only a character
 * device looks further (fstat, then a cache of "not uvcuse" verdicts by
 * file identity, lock-free). errno
 * is left as libc leaves it. Which fds are nodes is judged from the file
 * itself, never from tracking open/dup/close: fds made behind our back
 * (inherited across exec, passed over sockets, raw syscalls) work too. */
/* meson's -D_FILE_OFFSET_BITS=64 makes glibc rename mmap to mmap64 in its
 * headers; we define both names ourselves (off_t is 64-bit on x86_64; a
 * 32-bit build has both a 32-bit and a 64-bit offset form). */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "dmabuf_import.h"
#include "fastpath.h"
#include "client/memfd_fetch.h"
#include "uvcuse/compat32.h"
#include "uvcuse/uvcuse.h"

#define EXPORT __attribute__((visibility("default")))

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
typedef void *(*mmap64_fn)(void *, size_t, int, int, int, off64_t);
typedef int (*munmap_fn)(void *, size_t);
typedef long (*syscall_fn)(long, ...);
typedef int (*ioctl_fn)(int, unsigned long, ...);
typedef int (*fcntl_fn)(int, int, ...);
typedef int (*close_fn)(int);
typedef int (*dup2_fn)(int, int);
typedef int (*dup3_fn)(int, int, int);
typedef int (*close_range_fn)(unsigned, unsigned, int);
typedef void (*closefrom_fn)(int);
typedef int (*fclose_fn)(FILE *);
typedef int (*poll_fn)(struct pollfd *, nfds_t, int);
typedef int (*ppoll_fn)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
typedef int (*poll_chk_fn)(struct pollfd *, nfds_t, int, size_t);
typedef int (*ppoll_chk_fn)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *,
			    size_t);

/* The next definitions (libc's), found on first use. Racing threads store
 * the same value, so relaxed atomics suffice; dlsym does not call mmap
 * through us (glibc's malloc uses its internal __mmap). */
static _Atomic(mmap_fn) next_mmap_p;
#if UINTPTR_MAX != UINT64_MAX
static _Atomic(mmap64_fn) next_mmap64_p;
#endif
static _Atomic(munmap_fn) next_munmap_p;
static _Atomic(syscall_fn) next_syscall_p;
static _Atomic(ioctl_fn) next_ioctl_p;
static _Atomic(fcntl_fn) next_fcntl_p;
static _Atomic(fcntl_fn) next_fcntl64_p;
static _Atomic(close_fn) next_close_p;
static _Atomic(dup2_fn) next_dup2_p;
static _Atomic(dup3_fn) next_dup3_p;
static _Atomic(close_range_fn) next_close_range_p;
static _Atomic(closefrom_fn) next_closefrom_p;
static _Atomic(fclose_fn) next_fclose_p;
static _Atomic(poll_fn) next_poll_p;
static _Atomic(ppoll_fn) next_ppoll_p;
static _Atomic(poll_chk_fn) next_poll_chk_p;
static _Atomic(ppoll_chk_fn) next_ppoll_chk_p;
#if UINTPTR_MAX != UINT64_MAX
static _Atomic(ioctl_fn) next_ioctl_time64_p;
static _Atomic(fcntl_fn) next_fcntl_time64_p;
#endif

#define NEXT(var, type, name)                                                 \
	static inline type var##_get(void)                                    \
	{                                                                     \
		type f = atomic_load_explicit(&var##_p, memory_order_relaxed); \
		if (__builtin_expect(!f, 0)) {                                \
			int saved = errno;                                    \
			f = (type)dlsym(RTLD_NEXT, name);                     \
			errno = saved;                                        \
			atomic_store_explicit(&var##_p, f, memory_order_relaxed); \
		}                                                             \
		return f;                                                     \
	}
NEXT(next_mmap, mmap_fn, "mmap")
#if UINTPTR_MAX != UINT64_MAX
NEXT(next_mmap64, mmap64_fn, "mmap64")
#endif
NEXT(next_munmap, munmap_fn, "munmap")
NEXT(next_syscall, syscall_fn, "syscall")
NEXT(next_ioctl, ioctl_fn, "ioctl")
NEXT(next_fcntl, fcntl_fn, "fcntl")
NEXT(next_fcntl64, fcntl_fn, "fcntl64")
NEXT(next_close, close_fn, "close")
NEXT(next_dup2, dup2_fn, "dup2")
NEXT(next_dup3, dup3_fn, "dup3")
NEXT(next_close_range, close_range_fn, "close_range")
NEXT(next_closefrom, closefrom_fn, "closefrom")
NEXT(next_fclose, fclose_fn, "fclose")
NEXT(next_poll, poll_fn, "poll")
NEXT(next_ppoll, ppoll_fn, "ppoll")
NEXT(next_poll_chk, poll_chk_fn, "__poll_chk")
NEXT(next_ppoll_chk, ppoll_chk_fn, "__ppoll_chk")
#if UINTPTR_MAX != UINT64_MAX
/* glibc >= 2.34 on 32-bit: programs built with 64-bit time call these in
 * place of ioctl and fcntl (absent from older glibc: then nobody does) */
NEXT(next_ioctl_time64, ioctl_fn, "__ioctl_time64")
NEXT(next_fcntl_time64, fcntl_fn, "__fcntl_time64")
/* ... and __ppoll64 for ppoll, with glibc's struct __timespec64 (a 32-bit
 * tv_nsec, then padding) */
struct timespec64_i386 {
	int64_t tv_sec;
	int32_t tv_nsec;
	int32_t pad;
};
typedef int (*ppoll64_fn)(struct pollfd *, nfds_t, const struct timespec64_i386 *,
			  const sigset_t *);
typedef int (*ppoll64_chk_fn)(struct pollfd *, nfds_t, const struct timespec64_i386 *,
			      const sigset_t *, size_t);
static _Atomic(ppoll64_fn) next_ppoll64_p;
static _Atomic(ppoll64_chk_fn) next_ppoll64_chk_p;
NEXT(next_ppoll64, ppoll64_fn, "__ppoll64")
NEXT(next_ppoll64_chk, ppoll64_chk_fn, "__ppoll64_chk")

#endif

/* Resolved before any app code runs, so that nothing the library does in
 * close(), poll() or a fork handler (which signal handlers may call) ever
 * calls dlsym or pthread_atfork (not async-signal-safe): the lazy lookup of
 * NEXT() stays for calls made before this constructor (other libraries'
 * constructors). Cheap: a dozen symbol lookups at each program start. */
__attribute__((constructor)) static void resolve_next(void)
{
	next_mmap_get();
#if UINTPTR_MAX != UINT64_MAX
	next_mmap64_get();
#endif
	next_munmap_get();
	next_syscall_get();
	next_ioctl_get();
	next_fcntl_get();
	next_fcntl64_get();
	next_close_get();
	next_dup2_get();
	next_dup3_get();
	next_close_range_get();
	next_closefrom_get();
	next_fclose_get();
	next_poll_get();
	next_ppoll_get();
	next_poll_chk_get();
	next_ppoll_chk_get();
#if UINTPTR_MAX != UINT64_MAX
	next_ioctl_time64_get();
	next_fcntl_time64_get();
	next_ppoll64_get();
	next_ppoll64_chk_get();
#endif
	fastpath_init();
}

/* --- the cache of "not a uvcuse node" ----------------------------------------
 * Keyed by the file's identity (st_dev, st_ino, st_rdev), whatever its fd
 * number (a GPU's fd above 1023 is asked once, not at every mapping): a
 * reused number misses unless it is the same file. A forked child inherits
 * a cache that is right for it. Only negative answers are kept: a uvcuse
 * node is asked for a token on every mapping anyway. Each slot is a
 * seqlock: a reader that sees a write in progress treats it as a miss;
 * writers that race skip; two files whose identities hash alike take the
 * slot in turn (a miss costs one private ioctl). */
#define CACHE_SLOTS 1024

struct slot {
	atomic_uint seq; /* odd while written */
	_Atomic(uint64_t) dev, ino, rdev;
};
static struct slot cache[CACHE_SLOTS];

static struct slot *cache_slot(const struct stat *st)
{
	uint64_t h = (uint64_t)st->st_ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)st->st_rdev ^
		     ((uint64_t)st->st_dev << 17);
	return &cache[(h ^ (h >> 29)) % CACHE_SLOTS];
}

static bool cache_not_ours(int fd, const struct stat *st)
{
	(void)fd;
	struct slot *s = cache_slot(st);
	unsigned seq = atomic_load_explicit(&s->seq, memory_order_acquire);
	if (!seq || (seq & 1))
		return false;
	bool hit = atomic_load_explicit(&s->dev, memory_order_relaxed) == (uint64_t)st->st_dev &&
		   atomic_load_explicit(&s->ino, memory_order_relaxed) == (uint64_t)st->st_ino &&
		   atomic_load_explicit(&s->rdev, memory_order_relaxed) == (uint64_t)st->st_rdev;
	atomic_thread_fence(memory_order_acquire);
	return hit && atomic_load_explicit(&s->seq, memory_order_relaxed) == seq;
}

static void cache_set_not_ours(int fd, const struct stat *st)
{
	(void)fd;
	struct slot *s = cache_slot(st);
	unsigned seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	if ((seq & 1) || !atomic_compare_exchange_strong(&s->seq, &seq, seq + 1))
		return;
	atomic_store_explicit(&s->dev, (uint64_t)st->st_dev, memory_order_relaxed);
	atomic_store_explicit(&s->ino, (uint64_t)st->st_ino, memory_order_relaxed);
	atomic_store_explicit(&s->rdev, (uint64_t)st->st_rdev, memory_order_relaxed);
	atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
}

/* A character device not known as "not uvcuse": worth asking the daemon. */
static bool maybe_node(int fd, struct stat *st)
{
	return fstat(fd, st) == 0 && S_ISCHR(st->st_mode) && !cache_not_ours(fd, st);
}

/* The answer of a private ioctl tells whether fd is a uvcuse node: any
 * refusal but a passing one (no memory, a signal, a caller gone, the
 * daemon busy) means never: ENOTTY, or EINVAL, EPERM, EACCES... from
 * drivers that check other things first. */
static void judge(int fd, const struct stat *st, int err)
{
	if (err != EAGAIN && err != ENOMEM && err != EINTR && err != ESRCH && err != EBUSY)
		cache_set_not_ours(fd, st);
}

/* After O_NONBLOCK may have changed on fd: tell the daemon if it is ours. */
static void tell_flags(int fd)
{
	struct stat st;
	int saved = errno;
	if (maybe_node(fd, &st)) {
		int fl = next_fcntl_get()(fd, F_GETFL);
		struct uvcuse_file_flags ff = { .magic = UVCUSE_MAGIC, .flags = (uint32_t)fl };
		if (fl >= 0 && next_ioctl_get()(fd, UVCUSE_IOC_SET_FLAGS, &ff) < 0)
			judge(fd, &st, errno);
	}
	errno = saved;
}

/* QBUF or DQBUF on a possible node through the fast path (fastpath.h).
 * Returns true when it answered (*ret, errno). */
static bool node_fastpath(int fd, unsigned long request, void *b, int *ret)
{
	struct fastpath_probe probe = {
		.next_ioctl = next_ioctl_get(),
		.maybe_node = maybe_node,
		.not_ours = cache_set_not_ours,
	};
	return fastpath_ioctl(&probe, fd, request, b, ret) == FASTPATH_HANDLED;
}

/* What the library reads of a DQBUF answer, wherever the caller's layout
 * puts it: a 32-bit build serves programs built with 32-bit time and with
 * 64-bit time (uvcuse/compat32.h), each numbering DQBUF with its own size. */
struct dq_answer {
	uint32_t index, memory, bytesused;
	uintptr_t userptr;
};

#if UINTPTR_MAX == UINT64_MAX
static bool is_dqbuf(unsigned long request)
{
	return request == VIDIOC_DQBUF;
}

static void read_dq_answer(const void *arg, unsigned long request, struct dq_answer *a)
{
	(void)request;
	const struct v4l2_buffer *b = arg;
	*a = (struct dq_answer){ b->index, b->memory, b->bytesused, b->m.userptr };
}
#else
static bool is_dqbuf(unsigned long request)
{
	return request == COMPAT32_VIDIOC_DQBUF || request == COMPAT32_VIDIOC_DQBUF_TIME32;
}

#define DQ_ANSWER(b) { (b)->index, (b)->memory, (b)->bytesused, (b)->m }

static void read_dq_answer(const void *arg, unsigned long request, struct dq_answer *a)
{
	if (request == COMPAT32_VIDIOC_DQBUF) {
		const struct compat32_buffer *b = arg;
		*a = (struct dq_answer)DQ_ANSWER(b);
	} else {
		const struct compat32_buffer_time32 *b = arg;
		*a = (struct dq_answer)DQ_ANSWER(b);
	}
}
#endif

/* DQBUF on a possible node: the staged form (numbered with the caller's
 * size, as its DQBUF), then a USERPTR frame copied from the daemon's
 * staging memory. *handled is false when fd is not a uvcuse node (the
 * caller asks libc). */
static int node_dqbuf(int fd, unsigned long request, void *b, bool *handled)
{
	struct stat st;
	int saved = errno;
	*handled = false;
	if (!maybe_node(fd, &st)) {
		errno = saved;
		return 0;
	}
	unsigned long staged = _IOC(_IOC_DIR(UVCUSE_IOC_DQBUF_STAGED),
				    _IOC_TYPE(UVCUSE_IOC_DQBUF_STAGED),
				    _IOC_NR(UVCUSE_IOC_DQBUF_STAGED), _IOC_SIZE(request));
	if (next_ioctl_get()(fd, staged, b) < 0) {
		int err = errno;
		if (err == ENOTTY || err == EINVAL) {
			/* ENOTTY: not ours. EINVAL: DQBUF's own answer on ours, or
			 * how some other driver refuses an unknown ioctl: libc's
			 * DQBUF then answers for either (again EINVAL on ours). */
			if (err == ENOTTY)
				cache_set_not_ours(fd, &st);
			errno = saved;
			return 0;
		}
		*handled = true;
		errno = err;
		return -1;
	}
	*handled = true;
	/* b was written by the kernel: it is the app's valid memory */
	struct dq_answer a;
	read_dq_answer(b, request, &a);
	if (a.memory != V4L2_MEMORY_USERPTR || !a.bytesused) {
		errno = saved;
		return 0;
	}
	bool ours;
	int memfd = uvcuse_fetch_memfd(next_ioctl_get(), fd, UVCUSE_STAGING_OFFSET(a.index),
				       a.bytesused, &ours);
	if (memfd < 0) {
		errno = -memfd;
		return -1;
	}
	ssize_t n = pread(memfd, (void *)a.userptr, a.bytesused, 0);
	int err = errno;
	close(memfd);
	if (n != (ssize_t)a.bytesused) {
		errno = n < 0 ? err : EIO;
		return -1;
	}
	errno = saved;
	return 0;
}

/* mmap of a file: a uvcuse node's buffer, or libc's answer (*handled false:
 * anonymous memory, another file; the caller asks libc). */
static void *node_mmap(void *addr, size_t len, int prot, int flags, int fd, int64_t off,
		       bool *handled)
{
	struct stat st;
	*handled = false;
	if ((flags & MAP_ANONYMOUS) || fd < 0)
		return NULL;
	int saved = errno;
	if (!maybe_node(fd, &st)) {
		errno = saved;
		return NULL;
	}
	bool ours;
	int memfd = uvcuse_fetch_memfd(next_ioctl_get(), fd, (uint64_t)off, len, &ours);
	if (!ours) {
		/* other errors (EINTR...) may pass: ask again next time */
		judge(fd, &st, -memfd);
		errno = saved;
		return NULL;
	}
	*handled = true;
	/* vb2_mmap: buffers are shared memory (VM_SHARED required). */
	if (!(flags & MAP_SHARED)) {
		if (memfd >= 0)
			close(memfd);
		errno = EINVAL;
		return MAP_FAILED;
	}
	if (memfd < 0) {
		errno = -memfd;
		return MAP_FAILED;
	}
	/* The memfd holds just this buffer: its offset 0 is the cookie's. */
	void *p = next_mmap_get()(addr, len, prot, flags, memfd, 0);
	int e = errno;
	close(memfd);
	errno = p == MAP_FAILED ? e : saved;
	return p;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	bool handled;
	void *p = node_mmap(addr, len, prot, flags, fd, off, &handled);
	return handled ? p : next_mmap_get()(addr, len, prot, flags, fd, off);
}

#if UINTPTR_MAX == UINT64_MAX
/* 64-bit glibc: mmap64 is mmap (off_t is 64-bit). */
EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}
#else
/* 32-bit: mmap64 is a function of its own, with a 64-bit offset (what
 * programs built with 64-bit off_t call). */
EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	bool handled;
	void *p = node_mmap(addr, len, prot, flags, fd, off, &handled);
	return handled ? p : next_mmap64_get()(addr, len, prot, flags, fd, off);
}
#endif

/* A buffer mapping is an ordinary memfd mapping: munmap needs no help yet.
 * Interposed so the mapping count (QUERYBUF's V4L2_BUF_FLAG_MAPPED) can be
 * reported to the daemon later without changing the ABI of this library. */
EXPORT int munmap(void *addr, size_t len)
{
	return next_munmap_get()(addr, len);
}

/* Like glibc's, the third argument is read whether the request has one
 * or not (a register nobody else reads). */
/* VIDIOC_EXPBUF on a possible node: CUSE cannot hand an fd back, so the
 * daemon checks the request (UVCUSE_IOC_EXPBUF, vb2's checks, ENOTTY when
 * it makes no dma-bufs) and names the buffer's mmap offset, for which its
 * buffer socket hands a dma-buf it made through /dev/udmabuf. *handled is
 * false when fd is not a uvcuse node (the caller asks libc). */
static int node_expbuf(int fd, struct v4l2_exportbuffer *e, bool *handled)
{
	struct stat st;
	int saved = errno;
	*handled = false;
	if (!maybe_node(fd, &st))
		return 0;
	struct v4l2_exportbuffer checked = *e;
	if (next_ioctl_get()(fd, UVCUSE_IOC_EXPBUF, &checked) < 0) {
		if (errno == ENOTTY) {
			/* another driver's (or uvcuse without dma-bufs: CUSE
			 * answers VIDIOC_EXPBUF ENOTTY too) */
			errno = saved;
			return 0;
		}
		*handled = true;
		return -1;
	}
	*handled = true;
	bool ours;
	int dmabuf = uvcuse_fetch_memfd(next_ioctl_get(), fd,
					UVCUSE_DMABUF_FLAG | checked.reserved[0], 0, &ours);
	if (dmabuf < 0) {
		errno = ours ? -dmabuf : ENOTTY;
		return -1;
	}
	if (!(e->flags & O_CLOEXEC))
		next_fcntl_get()(dmabuf, F_SETFD, 0);
	e->fd = dmabuf;
	errno = saved;
	return 0;
}

static int node_or_next_ioctl(ioctl_fn next, int fd, unsigned long request, void *arg)
{
	uint32_t op;
	if (__builtin_expect(fastpath_wire_op(request, &op), 0) && arg) {
		int r;
		if (node_fastpath(fd, request, arg, &r))
			return r;
	}
	if (__builtin_expect(is_dqbuf(request), 0) && arg) {
		bool handled;
		int r = node_dqbuf(fd, request, arg, &handled);
		if (handled)
			return r;
	}
	if (__builtin_expect(request == VIDIOC_EXPBUF, 0) && arg) {
		bool handled;
		int r = node_expbuf(fd, arg, &handled);
		if (handled)
			return r;
	}
	/* (QBUF and DQBUF were checked by the fast path before any channel use) */
	if (__builtin_expect(_IOC_TYPE(request) == 'V', 0) && !fastpath_wire_op(request, &op))
		fastpath_check_fd(fd);
	int r = next(fd, request, arg);
	if (__builtin_expect(request == FIONBIO, 0) && r == 0)
		tell_flags(fd);
	return r;
}

/* QBUF or PREPARE_BUF of DMABUF buffer index on a possible node
 * (dmabuf_import.h): the app's dma-buf goes to the daemon first unless it
 * has it, and again, with the request once more, when the daemon did not
 * know it after all (EINVAL). One it could not take goes as m.fd -1: the
 * daemon answers as vb2 for a bad fd (or ignores it, as vb2, for a
 * prepared buffer), never with a dma-buf it had under that number. */
static int dmabuf_qbuf(ioctl_fn next, int fd, unsigned long request, void *arg, unsigned index,
		       int app_fd)
{
	struct stat st;
	if (!maybe_node(fd, &st))
		return next(fd, request, arg);
	int err = 0;
	enum dmabuf_import_verdict v =
		dmabuf_import_ensure(next_ioctl_get(), fd, &st, index, app_fd, false, &err);
	if (v == DMABUF_IMPORT_NOT_OURS) {
		judge(fd, &st, err);
		return next(fd, request, arg);
	}
	if (v == DMABUF_IMPORT_UNUSABLE) {
		dmabuf_import_set_fd(request, arg, -1);
		int r = node_or_next_ioctl(next, fd, request, arg);
		if (r < 0) /* the app's struct as it was, as a failed ioctl leaves it */
			dmabuf_import_set_fd(request, arg, app_fd);
		return r;
	}
	int r = node_or_next_ioctl(next, fd, request, arg);
	if (r < 0 && errno == EINVAL && v == DMABUF_IMPORT_KNOWN) {
		int saved = errno;
		v = dmabuf_import_ensure(next_ioctl_get(), fd, &st, index, app_fd, true, &err);
		if (v == DMABUF_IMPORT_SENT)
			return node_or_next_ioctl(next, fd, request, arg);
		errno = saved;
	}
	return r;
}

static int do_ioctl(ioctl_fn next, int fd, unsigned long request, void *arg)
{
	unsigned index;
	int app_fd;
	if (__builtin_expect(arg && dmabuf_import_request(request, arg, &index, &app_fd), 0))
		return dmabuf_qbuf(next, fd, request, arg, index, app_fd);
	return node_or_next_ioctl(next, fd, request, arg);
}

EXPORT int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	va_start(ap, request);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return do_ioctl(next_ioctl_get(), fd, request, arg);
}

#if UINTPTR_MAX != UINT64_MAX
EXPORT int __ioctl_time64(int fd, unsigned long request, ...)
{
	va_list ap;
	va_start(ap, request);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	ioctl_fn next = next_ioctl_time64_get();
	return do_ioctl(next ? next : next_ioctl_get(), fd, request, arg);
}
#endif

/* --- poll ------------------------------------------------------------------
 * A CUSE poll is a round trip to the daemon, and another after its
 * notification: node fds polled for POLLIN alone are answered from the
 * fast path's ring, or waited for on its doorbell (fastpath_poll). Sets
 * larger than FASTPATH_POLL_MAX, and ppoll() with a signal mask (which
 * must deliver the signals it unblocks), go to the kernel as they are. */

static int ns_to_ms(int64_t ns)
{
	if (ns < 0)
		return -1;
	int64_t ms = (ns + 999999) / 1000000; /* never early */
	return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

static struct timespec ns_to_ts(int64_t ns)
{
	return (struct timespec){ .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };
}

/* A timeout's seconds and nanoseconds in ns: -2 when the kernel would
 * answer EINVAL, -1 (none) beyond what 64 bits hold. */
static int64_t timeout_ns(int64_t sec, int64_t nsec)
{
	if (sec < 0 || nsec < 0 || nsec >= 1000000000)
		return -2; /* EINVAL: the kernel says so */
	if (sec > INT64_MAX / 1000000000 - 1)
		return -1;
	return sec * 1000000000 + nsec;
}

static int64_t ts_to_ns(const struct timespec *ts)
{
	return ts ? timeout_ns(ts->tv_sec, ts->tv_nsec) : -1;
}

static int wait_poll(void *ctx, struct pollfd *fds, nfds_t nfds, int64_t timeout_ns)
{
	(void)ctx;
	return next_poll_get()(fds, nfds, ns_to_ms(timeout_ns));
}

static int wait_ppoll(void *ctx, struct pollfd *fds, nfds_t nfds, int64_t timeout_ns)
{
	(void)ctx;
	struct timespec ts = ns_to_ts(timeout_ns);
	return next_ppoll_get()(fds, nfds, timeout_ns < 0 ? NULL : &ts, NULL);
}

EXPORT int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	int64_t t = timeout < 0 ? -1 : (int64_t)timeout * 1000000;
	int n = fastpath_poll(fds, nfds, &t, wait_poll, NULL);
	return n != -2 ? n : next_poll_get()(fds, nfds, ns_to_ms(t));
}

EXPORT int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *tmo,
		 const sigset_t *sigmask)
{
	int64_t t = ts_to_ns(tmo);
	if (sigmask || t == -2)
		return next_ppoll_get()(fds, nfds, tmo, sigmask);
	int n = fastpath_poll(fds, nfds, &t, wait_ppoll, NULL);
	if (n != -2)
		return n;
	struct timespec left = ns_to_ts(t);
	return next_ppoll_get()(fds, nfds, t < 0 ? NULL : &left, NULL);
}

/* _FORTIFY_SOURCE builds call these: the size check stays glibc's. */
EXPORT int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen)
{
	if (fdslen / sizeof(*fds) < nfds)
		return next_poll_chk_get()(fds, nfds, timeout, fdslen);
	return poll(fds, nfds, timeout);
}

EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t nfds, const struct timespec *tmo,
		       const sigset_t *sigmask, size_t fdslen)
{
	if (fdslen / sizeof(*fds) < nfds)
		return next_ppoll_chk_get()(fds, nfds, tmo, sigmask, fdslen);
	return ppoll(fds, nfds, tmo, sigmask);
}

#if UINTPTR_MAX != UINT64_MAX
EXPORT int __ppoll64(struct pollfd *fds, nfds_t nfds, const struct timespec64_i386 *tmo,
		     const sigset_t *sigmask)
{
	ppoll64_fn next = next_ppoll64_get();
	int64_t t = tmo ? timeout_ns(tmo->tv_sec, tmo->tv_nsec) : -1;
	if (sigmask || t == -2)
		return next(fds, nfds, tmo, sigmask);
	int n = fastpath_poll(fds, nfds, &t, wait_ppoll, NULL);
	if (n != -2)
		return n;
	struct timespec64_i386 left = { .tv_sec = t / 1000000000,
					.tv_nsec = (int32_t)(t % 1000000000) };
	return next(fds, nfds, t < 0 ? NULL : &left, NULL);
}

EXPORT int __ppoll64_chk(struct pollfd *fds, nfds_t nfds, const struct timespec64_i386 *tmo,
			 const sigset_t *sigmask, size_t fdslen)
{
	if (fdslen / sizeof(*fds) < nfds)
		return next_ppoll64_chk_get()(fds, nfds, tmo, sigmask, fdslen);
	return __ppoll64(fds, nfds, tmo, sigmask);
}
#endif

static int do_fcntl(fcntl_fn next, int fd, int cmd, void *arg)
{
	int r = next(fd, cmd, arg);
	if (__builtin_expect(cmd == F_SETFL, 0) && r == 0)
		tell_flags(fd);
	return r;
}

EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return do_fcntl(next_fcntl_get(), fd, cmd, arg);
}

/* glibc >= 2.28: callers built with 64-bit off_t call fcntl64. */
EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	fcntl_fn next = next_fcntl64_get();
	return do_fcntl(next ? next : next_fcntl_get(), fd, cmd, arg);
}

#if UINTPTR_MAX != UINT64_MAX
EXPORT int __fcntl_time64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	fcntl_fn next = next_fcntl_time64_get();
	return do_fcntl(next ? next : next_fcntl64_get(), fd, cmd, arg);
}
#endif

/* A node fd closed or replaced takes its fast-path channel with it. */
EXPORT int close(int fd)
{
	fastpath_forget(fd);
	return next_close_get()(fd);
}

EXPORT int dup2(int oldfd, int newfd)
{
	if (oldfd != newfd)
		fastpath_forget(newfd);
	return next_dup2_get()(oldfd, newfd);
}

EXPORT int dup3(int oldfd, int newfd, int flags)
{
	if (oldfd != newfd)
		fastpath_forget(newfd);
	return next_dup3_get()(oldfd, newfd, flags);
}

static void forget_range(unsigned first, unsigned last)
{
	for (unsigned fd = first; fd <= last && fd < FASTPATH_FDS; fd++)
		fastpath_forget((int)fd);
}

/* glibc >= 2.34 */
EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	close_range_fn next = next_close_range_get();
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	int r = next(first, last, flags);
	/* CLOSE_RANGE_CLOEXEC closes nothing now; exec forgets all anyway */
	if (r == 0 && !(flags & CLOSE_RANGE_CLOEXEC))
		forget_range(first, last);
	return r;
}

/* glibc >= 2.34; closes with close_range inside libc, which we do not see */
EXPORT void closefrom(int first)
{
	closefrom_fn next = next_closefrom_get();
	if (first >= 0)
		forget_range((unsigned)first, FASTPATH_FDS - 1);
	if (next)
		next(first);
}

/* fclose of a stream made by fdopen closes its fd inside libc */
EXPORT int fclose(FILE *stream)
{
	int fd = stream ? fileno(stream) : -1;
	if (fd >= 0)
		fastpath_forget(fd);
	return next_fclose_get()(stream);
}

/* libv4l2 maps driver buffers with syscall(SYS_mmap, ...), not mmap().
 * Like glibc's syscall(), this takes six arguments whatever the number
 * needs: the unused ones are register (or stack) garbage nobody reads. */
EXPORT long syscall(long nr, ...)
{
	va_list ap;
	va_start(ap, nr);
	long a1 = va_arg(ap, long), a2 = va_arg(ap, long), a3 = va_arg(ap, long);
	long a4 = va_arg(ap, long), a5 = va_arg(ap, long), a6 = va_arg(ap, long);
	va_end(ap);
#ifdef SYS_mmap2
	/* 32-bit: mmap2 counts the offset in pages; SYS_mmap is the old call
	 * that takes one pointer to its arguments (left to libc) */
	if (nr == SYS_mmap2)
		return (long)mmap64((void *)a1, (size_t)a2, (int)a3, (int)a4, (int)a5,
				    (off64_t)(unsigned long)a6 * 4096);
#else
	if (nr == SYS_mmap)
		return (long)mmap((void *)a1, (size_t)a2, (int)a3, (int)a4, (int)a5, (off_t)a6);
#endif
	if (nr == SYS_munmap)
		return munmap((void *)a1, (size_t)a2);
	/* and talks to the driver with syscall(SYS_ioctl, ...) */
	if (nr == SYS_ioctl)
		return ioctl((int)a1, (unsigned long)a2, (void *)a3);
	if (nr == SYS_fcntl)
		return do_fcntl(next_fcntl_get(), (int)a1, (int)a2, (void *)a3);
#ifdef SYS_fcntl64
	if (nr == SYS_fcntl64) /* 32-bit */
		return do_fcntl(next_fcntl64_get(), (int)a1, (int)a2, (void *)a3);
#endif
	if (nr == SYS_close)
		fastpath_forget((int)a1);
	/* a child made by a raw fork has a new pid (atfork handlers do not run) */
	if (nr == SYS_fork || (nr == SYS_clone && !(a1 & CLONE_VM))) {
		long pid = next_syscall_get()(nr, a1, a2, a3, a4, a5, a6);
		if (pid == 0)
			fastpath_forked();
		return pid;
	}
	if ((nr == SYS_dup2 || nr == SYS_dup3) && a1 != a2)
		fastpath_forget((int)a2);
	long r = next_syscall_get()(nr, a1, a2, a3, a4, a5, a6);
	if (nr == SYS_close_range && r == 0 && !((int)a3 & CLOSE_RANGE_CLOEXEC))
		forget_range((unsigned)a1, (unsigned)a2);
	return r;
}
