/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dma-bufs over the daemon's buffer memory, through the kernel's udmabuf
 * driver (/dev/udmabuf, CONFIG_UDMABUF): what VIDIOC_EXPBUF hands an app
 * (through the preload library and the buffer socket), so that GPUs,
 * GStreamer and PipeWire import a frame without a copy. /dev/udmabuf is
 * opened while the daemon is root (it is root's, or group kvm's, 0660 on
 * Debian); each dma-buf is made when asked for. */
#ifndef UVCUSE_SHARE_UDMABUF_H
#define UVCUSE_SHARE_UDMABUF_H

#include <stddef.h>

/* /dev/udmabuf opened (close-on-exec), or -errno (-ENOENT: a kernel
 * without udmabuf, -EACCES). */
int udmabuf_open(void);
/* A dma-buf (close-on-exec) of size bytes of memfd from its start, or
 * -errno. The memfd must be sealed against shrinking and not against
 * writing, size a whole number of pages within it. */
int udmabuf_export(int dev, int memfd, size_t size);

#endif
