/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The retry-protocol planner (see ioctl_table.h). */
#include "cuse/ioctl_table.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>


const struct cuse_ioctl_desc *cuse_ioctl_lookup(const struct cuse_ioctl_desc *table, size_t n,
						unsigned int cmd, bool compat)
{
	const struct cuse_ioctl_desc *native = NULL;
	for (size_t i = 0; i < n; i++) {
		if (table[i].cmd != cmd)
			continue;
		if (table[i].to_native) {
			if (compat)
				return &table[i];
		} else if (!native) {
			native = &table[i];
		}
	}
	return native;
}

/* The regions of the argument (of its native form, for a 32-bit one). */
static int arg_regions(const struct cuse_ioctl_desc *desc, const void *arg, struct iovec *iov,
		       bool *out)
{
	if (!desc->to_native)
		return desc->regions(arg, iov, out, CUSE_IOCTL_MAX_EXTRA);
	_Alignas(16) unsigned char native[CUSE_IOCTL_MAX_NATIVE];
	if (desc->native_size > sizeof(native))
		return -EINVAL;
	desc->to_native(arg, native);
	return desc->regions(native, iov, out, CUSE_IOCTL_MAX_EXTRA);
}

int cuse_ioctl_plan(const struct cuse_ioctl_desc *desc, unsigned long user_arg,
		    const void *in_buf, size_t in_bufsz, size_t out_bufsz,
		    struct cuse_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	size_t size = desc->size;
	unsigned dir = _IOC_DIR(desc->cmd);
	if (size == 0) {
		/* _IO: no argument to move. */
		plan->kind = CUSE_PLAN_CALL;
		return 0;
	}
	/* The argument comes in for _IOW and for any command whose regions
	 * have to be read out of it. */
	bool arg_in = (dir & _IOC_WRITE) || desc->regions;
	bool arg_out = dir & _IOC_READ;
	bool have_arg = arg_in && in_buf && in_bufsz >= size;

	struct iovec regs[CUSE_IOCTL_MAX_EXTRA];
	bool reg_out[CUSE_IOCTL_MAX_EXTRA];
	int n = 0;
	if (have_arg && desc->regions) {
		n = arg_regions(desc, in_buf, regs, reg_out);
		if (n < 0)
			return n;
		if (n > CUSE_IOCTL_MAX_EXTRA)
			return -EINVAL;
	}

	void *uarg = (void *)(uintptr_t)user_arg;
	size_t in_total = 0, out_total = 0, extra_len = 0;
	if (arg_in) {
		plan->in_iov[plan->n_in++] = (struct iovec){ uarg, size };
		in_total += size;
	}
	if (arg_out) {
		plan->out_src[plan->n_out] = 0;
		plan->out_iov[plan->n_out++] = (struct iovec){ uarg, size };
		out_total += size;
	}
	for (int i = 0; i < n; i++) {
		if (regs[i].iov_len == 0)
			continue;
		if (regs[i].iov_len > CUSE_IOCTL_MAX_DATA)
			return -E2BIG;
		plan->in_iov[plan->n_in++] = regs[i];
		in_total += regs[i].iov_len;
		if (reg_out[i]) {
			plan->out_src[plan->n_out] = size + extra_len;
			plan->out_iov[plan->n_out++] = regs[i];
			out_total += regs[i].iov_len;
		}
		extra_len += regs[i].iov_len;
	}
	if (in_total > CUSE_IOCTL_MAX_DATA || out_total > CUSE_IOCTL_MAX_DATA)
		return -E2BIG;

	if ((!arg_in || have_arg) && in_bufsz == in_total && out_bufsz == out_total) {
		plan->kind = CUSE_PLAN_CALL;
		plan->arg = arg_in ? in_buf : NULL;
		plan->extra = extra_len ? (const char *)in_buf + size : NULL;
		plan->extra_len = extra_len;
		return 0;
	}
	/* Not complete: ask for the layout known now. The first round (0, 0)
	 * and the round that brought the argument alone are expected; any
	 * other size means the argument changed after its regions were sized. */
	plan->kind = CUSE_PLAN_RETRY;
	bool first = in_bufsz == 0 && out_bufsz == 0;
	bool arg_only = in_bufsz == (arg_in ? size : 0) && out_bufsz == (arg_out ? size : 0);
	plan->mismatch = !first && !arg_only;
	return 0;
}
