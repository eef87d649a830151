/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ioctl layouts the daemon gives CUSE (src/device/requests.c,
 * requests_ioctl_layouts), as one list in a fixed order: the node's table
 * (src/v4l2/ioctls.c), then the preload library's private ioctls, then
 * the 32-bit forms of both (added last: the older indexes stay). The node
 * target picks an ioctl by its index here, and fuzz-seeds writes its seeds
 * with the same indexes. */
#ifndef FUZZ_IOCTL_LAYOUTS_H
#define FUZZ_IOCTL_LAYOUTS_H

#include <stddef.h>

#include "cuse/ioctl_table.h"
#include "uvcuse/uvcuse.h"
#include "v4l2/compat32.h"
#include "v4l2/ioctls.h"

/* Appended after them: the 32-bit forms of those commands
 * (src/v4l2/compat32.c), as requests_compat_layouts adds them. */
static inline void add_compat_forms(struct cuse_ioctl_desc *list, size_t *n, size_t max)
{
	size_t count, native = *n;
	const struct compat32_form *forms = compat32_forms(&count);
	struct compat32_form staged[2];
	compat32_buffer_forms(UVCUSE_IOC_DQBUF_STAGED, "DQBUF_STAGED (32-bit)",
			      "DQBUF_STAGED (32-bit, 32-bit time)", staged);
	for (size_t i = 0; i < native; i++) {
		for (size_t k = 0; k < count + 2 && *n < max; k++) {
			const struct compat32_form *f = k < count ? &forms[k] : &staged[k - count];
			if (f->native_cmd != list[i].cmd)
				continue;
			struct cuse_ioctl_desc d = list[i];
			d.cmd = f->cmd, d.name = f->name, d.size = _IOC_SIZE(f->cmd);
			d.native_cmd = list[i].cmd, d.native_size = list[i].size;
			d.to_native = f->to_native, d.from_native = f->from_native;
			list[(*n)++] = d;
		}
	}
}

static inline const struct cuse_ioctl_desc *ioctl_layouts(size_t *count)
{
	static struct cuse_ioctl_desc list[128];
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
		add_compat_forms(list, &n, sizeof(list) / sizeof(list[0]));
	}
	*count = n;
	return list;
}

#endif
