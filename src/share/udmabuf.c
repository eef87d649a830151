/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dma-bufs over memfds (udmabuf.h). */
#include "share/udmabuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/udmabuf.h>

int udmabuf_open(void)
{
	int fd = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int udmabuf_export(int dev, int memfd, size_t size)
{
	if (dev < 0)
		return -ENOTTY;
	struct udmabuf_create c = { .memfd = (uint32_t)memfd, .flags = UDMABUF_FLAGS_CLOEXEC,
				    .offset = 0, .size = size };
	int fd = ioctl(dev, UDMABUF_CREATE, &c);
	return fd < 0 ? -errno : fd;
}
