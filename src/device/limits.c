/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What one process or one user may hold of the daemon (device_limits,
 * uvcuse.conf(5)): open files, and the memory of their buffers. Each open
 * file costs the daemon memory and every frame a little work, and buffer
 * memory is the daemon's: without bounds one app could take what every
 * other needs (issue 29, finding 2). */
#include <errno.h>
#include <linux/videodev2.h>

#include "core/log.h"
#include "device/internal.h"

int limits_may_open(struct device *dev, const struct process_id *who, uid_t uid)
{
	static struct log_limit limit;
	const struct device_limits *l = &dev->open.limits;
	unsigned of_process = 0, of_user = 0;
	for (const struct dev_file *df = dev->open.list; df; df = df->next) {
		if (df->releasing)
			continue;
		of_process += process_same(&df->opener, who);
		of_user += df->uid == uid;
	}
	const char *whose = of_process >= l->opens_per_process ? "process" :
			    of_user >= l->opens_per_user ? "user" : NULL;
	if (!whose)
		return 0;
	if (log_allowed(&limit, 2))
		log_warn("pid %d uid %u: open refused (EMFILE): the %s has %u files of /dev/%s open, "
			 "its limit (max-opens-per-%s)", (int)who->tgid, (unsigned)uid, whose,
			 whose[0] == 'p' ? of_process : of_user, dev->name, whose);
	return -EMFILE;
}

bool limits_may_open_channel(struct device *dev, uid_t uid)
{
	static struct log_limit limit;
	unsigned n = 0;
	for (const struct dev_file *df = dev->open.list; df; df = df->next)
		if (df->uid == uid)
			for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++)
				n += df->chans[i] != NULL;
	if (n < dev->open.limits.channels_per_user)
		return true;
	if (log_allowed(&limit, 2))
		log_warn("uid %u: fast-path channel refused: %u open, its limit "
			 "(max-channels-per-user); its requests go through CUSE",
			 (unsigned)uid, n);
	return false;
}

/* Bytes of buffer memory the queues of uid's processes hold, but for
 * skip's (each queue counted once, however many files share it). */
static uint64_t user_buffer_bytes(const struct device *dev, uid_t uid, const struct node_proc *skip)
{
	uint64_t total = 0;
	for (const struct node_proc *p = dev->node.procs; p; p = p->next) {
		if (p == skip)
			continue;
		const struct dev_file *df = dev->open.list;
		while (df && (df->nf.proc != p || df->uid != uid))
			df = df->next;
		if (!df)
			continue;
		for (unsigned i = 0; i < p->queue.n_buffers; i++)
			total += p->queue.buffers[i].length;
	}
	return total;
}

/* The bytes a REQBUFS or CREATE_BUFS would leave this process's queue
 * holding: the count the queue grants at most (VIDEO_MAX_FRAME in all, as
 * vb2: ffmpeg asks for 256), at the size asked for or the format's; more
 * than it may grant, never less. */
static uint64_t bytes_after(const struct device *dev, const struct dev_file *df, unsigned cmd,
			    const void *arg)
{
	const struct node_proc *p = df->nf.proc;
	uint64_t size = node_proc_fmt(&dev->node, p)->sizeimage;
	if (cmd == VIDIOC_REQBUFS) {
		uint32_t count = ((const struct v4l2_requestbuffers *)arg)->count;
		return (count < VIDEO_MAX_FRAME ? count : VIDEO_MAX_FRAME) * size;
	}
	const struct v4l2_create_buffers *cb = arg;
	if (cb->format.fmt.pix.sizeimage > size)
		size = cb->format.fmt.pix.sizeimage;
	uint64_t held = 0;
	for (unsigned i = 0; i < p->queue.n_buffers; i++)
		held += p->queue.buffers[i].length;
	unsigned room = VIDEO_MAX_FRAME - p->queue.n_buffers;
	return held + (uint64_t)(cb->count < room ? cb->count : room) * size;
}

int limits_buffer_memory(struct device *dev, const struct dev_file *df, unsigned cmd,
			 const void *arg)
{
	static struct log_limit limit;
	if ((cmd != VIDIOC_REQBUFS && cmd != VIDIOC_CREATE_BUFS) || !df->nf.proc)
		return 0;
	uint64_t max = (uint64_t)dev->open.limits.buffer_mib_per_user << 20;
	uint64_t want = bytes_after(dev, df, cmd, arg);
	uint64_t others = user_buffer_bytes(dev, df->uid, df->nf.proc);
	if (want + others <= max)
		return 0;
	if (log_allowed(&limit, 2))
		log_warn("uid %u: %s refused (ENOMEM): %llu MiB of buffers, with what its other "
			 "processes hold, over its %u MiB (max-buffer-memory-per-user)",
			 (unsigned)df->uid, cmd == VIDIOC_REQBUFS ? "REQBUFS" : "CREATE_BUFS",
			 (unsigned long long)((want + others) >> 20),
			 dev->open.limits.buffer_mib_per_user);
	return -ENOMEM;
}
