/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The client half of the buffer socket (include/uvcuse/uvcuse.h), shared
 * by the preload library and uvcuse-pipewire: proves with
 * UVCUSE_IOC_HELLO that the caller holds a uvcuse node open, then asks the
 * daemon for the memfd behind a QUERYBUF offset. No allocation, no locks,
 * no global state: safe inside an interposed mmap(). */
#ifndef UVCUSE_MEMFD_FETCH_H
#define UVCUSE_MEMFD_FETCH_H

#include <stdbool.h>
#include <stdint.h>

/* How to issue the HELLO ioctl: libc's ioctl, or the preload library's
 * "next" one (its own ioctl is interposed). */
typedef int (*uvcuse_ioctl_fn)(int, unsigned long, ...);

/* The memfd (O_CLOEXEC, the caller's to close) of the buffer at offset,
 * length bytes, of uvcuse node fd, or -errno. *ours tells whether fd is a
 * uvcuse node at all (false: the HELLO was refused or not understood). */
int uvcuse_fetch_memfd(uvcuse_ioctl_fn ioctl_call, int fd, uint64_t offset, uint64_t length,
		       bool *ours);

/* DMABUF import: dma-buf dmabuf (still the caller's) sent to the daemon
 * of uvcuse node fd with the request for offset (UVCUSE_IMPORT_OFFSET):
 * the daemon's answer, 0 or -errno. *ours as above. */
int uvcuse_send_dmabuf(uvcuse_ioctl_fn ioctl_call, int fd, uint64_t offset, int dmabuf,
		       bool *ours);

/* The fast path: a connection to the daemon made the channel of the open
 * file behind fd (UVCUSE_CHANNEL_OFFSET), the caller's to close, or -errno
 * (an older daemon or a full file: -EINVAL, -EOPNOTSUPP, -EBUSY...). *ours
 * as above; *ring_fd the ring's memfd the daemon sent and *bell_fd its
 * doorbell (-1: none; both the caller's). */
int uvcuse_open_channel(uvcuse_ioctl_fn ioctl_call, int fd, bool *ours, int *ring_fd,
			int *bell_fd);

#endif
