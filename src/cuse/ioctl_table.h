/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An ioctl's argument layout (its size, its direction from _IOC_DIR, the
 * user memory it points to), as the server's owner describes it
 * (cuse_server_ops.ioctl_desc: the node's table, src/v4l2/ioctls.c), and
 * the planner that carries any such layout through CUSE's
 * unrestricted-ioctl retry protocol, so one marshalling routine
 * (cuse/cuse.c) serves every ioctl. Pure: unit-tested without libfuse. */
#ifndef UVCUSE_CUSE_IOCTL_TABLE_H
#define UVCUSE_CUSE_IOCTL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/uio.h>

#define CUSE_IOCTL_ALWAYS_COPY (1u << 0) /* copy arg out also on error */

/* User memory an argument points to (read in before the handler runs):
 * appended after the argument in the handler's 'extra'. At most
 * CUSE_IOCTL_MAX_EXTRA regions per command. */
#define CUSE_IOCTL_MAX_EXTRA 4

/* The most the kernel moves in, or out, for one ioctl request: fuse's
 * max_pages (32 on Linux 6.1) pages. A layout above it is -E2BIG. */
#define CUSE_IOCTL_MAX_DATA (128u * 1024u)

/* Retry rounds whose sizes fit neither the argument alone nor the regions
 * the argument names (the app changed it between rounds) that cuse.c
 * tolerates for one ioctl before it answers -EINVAL. */
#define CUSE_IOCTL_MAX_MISMATCH 3

struct cuse_ioctl_desc {
	unsigned int cmd;
	const char *name;     /* "VIDIOC_QUERYCAP" */
	size_t size;          /* _IOC_SIZE(cmd) */
	unsigned flags;       /* CUSE_IOCTL_* */
	/* Embedded pointers: given the argument, the user regions to copy in
	 * (and back out, when out is set). Returns the number of regions, or
	 * -errno when the argument is bad (e.g. a count above the limit).
	 * NULL when the command has none. */
	int (*regions)(const void *arg, struct iovec *iov, bool *out, unsigned max);
	/* Set on a 32-bit caller's form of a command whose argument differs
	 * from the native one: served only to 32-bit callers
	 * (FUSE_IOCTL_COMPAT). The owner is handed native_cmd and a
	 * native_size argument made by to_native(); regions are those of the
	 * native argument; the answer goes back through from_native(). A
	 * 32-bit caller's command without such a form is served by the native
	 * entry of its number: the same number means the same layout. */
	unsigned int native_cmd;
	size_t native_size;
	void (*to_native)(const void *arg, void *native);
	void (*from_native)(const void *native, void *arg);
};

/* The largest native argument a 32-bit form may convert to. */
#define CUSE_IOCTL_MAX_NATIVE 512

/* cmd's entry in table (n entries) for a native caller, or for a 32-bit
 * one (compat: its own form first, else the native entry), or NULL. */
const struct cuse_ioctl_desc *cuse_ioctl_lookup(const struct cuse_ioctl_desc *table, size_t n,
						unsigned int cmd, bool compat);

/* The layout of cmd: its size from the command, and regions (NULL: none). */
static inline struct cuse_ioctl_desc cuse_ioctl_describe(unsigned int cmd, const char *name,
							 bool copy_on_error,
							 int (*regions)(const void *arg,
									struct iovec *iov,
									bool *out, unsigned max))
{
	return (struct cuse_ioctl_desc){ .cmd = cmd, .name = name, .size = _IOC_SIZE(cmd),
					 .flags = copy_on_error ? CUSE_IOCTL_ALWAYS_COPY : 0,
					 .regions = regions };
}

/* The marshalling plan for one round of the retry protocol: given what the
 * kernel sent (in_bufsz bytes in in_buf, out_bufsz room), either the call
 * is complete (CUSE_PLAN_CALL: arg and extra point into in_buf), or the
 * kernel must retry with in_iov/out_iov (CUSE_PLAN_RETRY), or the argument
 * is bad (-errno).
 *
 * Rounds: the first one (0, 0) asks for the argument (in for _IOW/_IOWR and
 * for commands with regions, out for _IOR/_IOWR); once the argument is in,
 * the regions are recomputed from it every round, and the call is complete
 * when the sizes the kernel sent are exactly that layout. _IO commands are
 * complete at once. -E2BIG when the layout exceeds CUSE_IOCTL_MAX_DATA in
 * or out; the regions' own -errno (e.g. -EINVAL: count above the limit). */
enum cuse_plan_kind { CUSE_PLAN_CALL, CUSE_PLAN_RETRY };

struct cuse_plan {
	enum cuse_plan_kind kind;
	struct iovec in_iov[1 + CUSE_IOCTL_MAX_EXTRA], out_iov[1 + CUSE_IOCTL_MAX_EXTRA];
	unsigned n_in, n_out;
	const void *arg;      /* CALL: the argument as sent (NULL for _IO, _IOR) */
	const void *extra;    /* CALL: the regions' bytes, concatenated */
	size_t extra_len;
	/* CALL: where out_iov[i] takes its bytes from, as an offset into the
	 * argument followed by extra (0 = the argument itself). */
	size_t out_src[1 + CUSE_IOCTL_MAX_EXTRA];
	/* RETRY: this round's sizes fit neither the argument alone nor the
	 * regions it names now: the caller changed the argument between
	 * rounds. cuse.c bounds how often (CUSE_IOCTL_MAX_MISMATCH). */
	bool mismatch;
};

int cuse_ioctl_plan(const struct cuse_ioctl_desc *desc, unsigned long user_arg,
		    const void *in_buf, size_t in_bufsz, size_t out_bufsz,
		    struct cuse_plan *plan);

#endif
