/* The ioctl table and the retry-protocol planner (see ioctl_table.h). */
#include "cuse/ioctl_table.h"

#include <errno.h>
#include <linux/uvcvideo.h>
#include <linux/videodev2.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#include "uvcuse/uvcuse.h"

/* uvcvideo's limit for a mapping's menu (drivers/media/usb/uvc/uvcvideo.h,
 * not in the uapi): UVCIOC_CTRL_MAP answers EINVAL above it. */
#define UVC_MAX_CONTROL_MENU_ENTRIES 32

/* The regions functions read the argument through a local copy: in_buf
 * carries no alignment promise. */

/* v4l2-ioctl.c check_array_args(): count 0 touches no array (the pointer is
 * ignored), above V4L2_CID_MAX_CTRLS is EINVAL; the array is copied back
 * also on error. */
static int ext_ctrls_regions(const void *arg, struct iovec *iov, bool *out, unsigned max)
{
	struct v4l2_ext_controls c;
	memcpy(&c, arg, sizeof(c));
	if (c.count == 0)
		return 0;
	if (c.count > V4L2_CID_MAX_CTRLS)
		return -EINVAL;
	if (max < 1)
		return -EINVAL;
	iov[0] = (struct iovec){ c.controls, (size_t)c.count * sizeof(struct v4l2_ext_control) };
	out[0] = true;
	return 1;
}

/* uvc_ioctl_xu_ctrl_map(): only menu mappings carry menu_info, 1 to 32
 * entries, read in. */
static int ctrl_map_regions(const void *arg, struct iovec *iov, bool *out, unsigned max)
{
	struct uvc_xu_control_mapping m;
	memcpy(&m, arg, sizeof(m));
	if (m.v4l2_type != V4L2_CTRL_TYPE_MENU)
		return 0;
	if (m.menu_count == 0 || m.menu_count > UVC_MAX_CONTROL_MENU_ENTRIES || max < 1)
		return -EINVAL;
	iov[0] = (struct iovec){ m.menu_info, (size_t)m.menu_count * sizeof(struct uvc_menu_info) };
	out[0] = false;
	return 1;
}

/* uvc_xu_ctrl_query(): size bytes at data, read for SET_CUR, written for
 * GET_*; copied both ways so one rule serves every query. */
static int ctrl_query_regions(const void *arg, struct iovec *iov, bool *out, unsigned max)
{
	struct uvc_xu_control_query q;
	memcpy(&q, arg, sizeof(q));
	if (q.size == 0)
		return 0;
	if (max < 1)
		return -EINVAL;
	iov[0] = (struct iovec){ q.data, q.size };
	out[0] = true;
	return 1;
}

#define IOCTL(c, f, r) { .cmd = (c), .name = #c, .size = _IOC_SIZE(c), .flags = (f), .regions = (r) }

/* __prepare_userptr(): get_user_pages() fails with EFAULT on an app buffer
 * that is not mapped. CUSE cannot pin pages; having the kernel read the
 * first and the last byte of [m.userptr, +length) in the retry round is the
 * same check for the common mistakes (a stale or made-up pointer, a length
 * beyond the mapping), and EFAULT reaches the app before the daemon sees
 * the QBUF. Read only: a failure copying back out would come after the
 * daemon queued the buffer. Multi-planar types carry m.planes; the daemon
 * answers EINVAL for them, so they get no region. */
static int userptr_regions(const void *arg, struct iovec *iov, bool *out, unsigned max)
{
	struct v4l2_buffer b;
	memcpy(&b, arg, sizeof(b));
	if (b.memory != V4L2_MEMORY_USERPTR || b.type != V4L2_BUF_TYPE_VIDEO_CAPTURE ||
	    !b.m.userptr || !b.length)
		return 0;
	if (max < 2)
		return -EINVAL;
	iov[0] = (struct iovec){ (void *)b.m.userptr, 1 };
	iov[1] = (struct iovec){ (void *)(b.m.userptr + b.length - 1), 1 };
	out[0] = out[1] = false;
	return 2;
}

static const struct cuse_ioctl_desc table[] = {
	IOCTL(VIDIOC_QUERYCAP, 0, NULL),
	IOCTL(VIDIOC_ENUM_FMT, 0, NULL),
	IOCTL(VIDIOC_G_FMT, 0, NULL),
	IOCTL(VIDIOC_S_FMT, 0, NULL),
	IOCTL(VIDIOC_TRY_FMT, 0, NULL),
	IOCTL(VIDIOC_REQBUFS, 0, NULL),
	IOCTL(VIDIOC_QUERYBUF, 0, NULL),
	IOCTL(VIDIOC_QBUF, 0, userptr_regions),
	IOCTL(VIDIOC_DQBUF, 0, NULL),
	IOCTL(VIDIOC_PREPARE_BUF, 0, userptr_regions),
	IOCTL(VIDIOC_CREATE_BUFS, 0, NULL),
	IOCTL(VIDIOC_STREAMON, 0, NULL),
	IOCTL(VIDIOC_STREAMOFF, 0, NULL),
	IOCTL(VIDIOC_G_PARM, 0, NULL),
	IOCTL(VIDIOC_S_PARM, 0, NULL),
	IOCTL(VIDIOC_G_PRIORITY, 0, NULL),
	IOCTL(VIDIOC_S_PRIORITY, 0, NULL),
	IOCTL(VIDIOC_ENUMINPUT, 0, NULL),
	IOCTL(VIDIOC_G_INPUT, 0, NULL),
	IOCTL(VIDIOC_S_INPUT, 0, NULL),
	IOCTL(VIDIOC_ENUM_FRAMESIZES, 0, NULL),
	IOCTL(VIDIOC_ENUM_FRAMEINTERVALS, 0, NULL),
	IOCTL(VIDIOC_QUERYCTRL, 0, NULL),
	IOCTL(VIDIOC_QUERY_EXT_CTRL, 0, NULL),
	IOCTL(VIDIOC_QUERYMENU, 0, NULL),
	IOCTL(VIDIOC_G_CTRL, 0, NULL),
	IOCTL(VIDIOC_S_CTRL, 0, NULL),
	IOCTL(VIDIOC_G_EXT_CTRLS, CUSE_IOCTL_ALWAYS_COPY, ext_ctrls_regions),
	IOCTL(VIDIOC_S_EXT_CTRLS, CUSE_IOCTL_ALWAYS_COPY, ext_ctrls_regions),
	IOCTL(VIDIOC_TRY_EXT_CTRLS, CUSE_IOCTL_ALWAYS_COPY, ext_ctrls_regions),
	IOCTL(VIDIOC_SUBSCRIBE_EVENT, 0, NULL),
	IOCTL(VIDIOC_UNSUBSCRIBE_EVENT, 0, NULL),
	IOCTL(VIDIOC_DQEVENT, 0, NULL),
	IOCTL(VIDIOC_LOG_STATUS, 0, NULL),
	IOCTL(UVCIOC_CTRL_MAP, 0, ctrl_map_regions),
	IOCTL(UVCIOC_CTRL_QUERY, 0, ctrl_query_regions),
	/* Private: the preload library's proof that it holds this file open
	 * (include/uvcuse/uvcuse.h); device.c answers it, else ENOTTY. */
	IOCTL(UVCUSE_IOC_HELLO, 0, NULL),
	IOCTL(UVCUSE_IOC_SET_FLAGS, 0, NULL),
	IOCTL(UVCUSE_IOC_DQBUF_STAGED, 0, NULL),
};

const struct cuse_ioctl_desc *cuse_ioctl_find(unsigned int cmd)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].cmd == cmd)
			return &table[i];
	return NULL;
}

/* For the unit test: walk the table. */
const struct cuse_ioctl_desc *cuse_ioctl_table(size_t *count)
{
	*count = sizeof(table) / sizeof(table[0]);
	return table;
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
		n = desc->regions(in_buf, regs, reg_out, CUSE_IOCTL_MAX_EXTRA);
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
