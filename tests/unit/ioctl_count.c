/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Preloaded after libuvcuse-preload.so by test_preload: the library's
 * calls to libc's ioctl() (its RTLD_NEXT) come here first, so the test can
 * count the private ioctls the library asks character devices (issue 29,
 * finding 8: a verdict kept for any fd). Forwards every call to libc. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdatomic.h>

#include "uvcuse/uvcuse.h"

typedef int (*ioctl_fn)(int, unsigned long, ...);

static atomic_uint hellos;

__attribute__((visibility("default"))) unsigned ioctl_count_hellos(void)
{
	return atomic_load(&hellos);
}

__attribute__((visibility("default"))) int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	va_start(ap, request);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (request == UVCUSE_IOC_HELLO)
		atomic_fetch_add(&hellos, 1);
	static ioctl_fn next;
	if (!next)
		next = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
	return next(fd, request, arg);
}
