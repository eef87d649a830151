/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ioctl layouts the daemon gives CUSE (src/device/requests.c,
 * requests_ioctl_layouts), as one list in a fixed order: the node's table
 * (src/v4l2/ioctls.c), then the preload library's private ioctls. The node
 * target picks an ioctl by its index here, and fuzz-seeds writes its seeds
 * with the same indexes. */
#ifndef FUZZ_IOCTL_LAYOUTS_H
#define FUZZ_IOCTL_LAYOUTS_H

#include <stddef.h>

#include "cuse/ioctl_table.h"
#include "uvcuse/uvcuse.h"
#include "v4l2/ioctls.h"

static inline const struct cuse_ioctl_desc *ioctl_layouts(size_t *count)
{
	static struct cuse_ioctl_desc list[64];
	static size_t n;
	if (!n) {
		size_t k;
		const struct node_ioctl *t = node_ioctl_table(&k);
		for (size_t i = 0; i < k && n < 61; i++)
			list[n++] = cuse_ioctl_describe(t[i].cmd, t[i].name,
							t[i].flags & NODE_IOC_COPY_ON_ERROR,
							t[i].regions);
		list[n++] = cuse_ioctl_describe(UVCUSE_IOC_HELLO, "UVCUSE_IOC_HELLO", false, NULL);
		list[n++] = cuse_ioctl_describe(UVCUSE_IOC_SET_FLAGS, "UVCUSE_IOC_SET_FLAGS", false,
						NULL);
		list[n++] = cuse_ioctl_describe(UVCUSE_IOC_DQBUF_STAGED, "UVCUSE_IOC_DQBUF_STAGED",
						false, NULL);
	}
	*count = n;
	return list;
}

#endif
