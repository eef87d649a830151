/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-bufsharetest: a CUSE node on src/cuse/ with one memfd buffer
 * handed out through src/share/bufshare.c, so tests/e2e/preload.sh can prove the
 * preload library (mmap, syscall(SYS_mmap), fork) and the socket's
 * refusals without the daemon or a camera.
 *
 *   uvcuse-bufsharetest --name NAME [--runtime-dir DIR]    serve /dev/NAME
 *
 * - UVCUSE_IOC_HELLO: bufshare_hello() for the calling file.
 * - VIDIOC_STREAMON: the calling file becomes the buffer's owner (the
 *   queue owner of the real node); its release gives the buffer back.
 * - The buffer: BUF_SIZE bytes at mmap offset BUF_COOKIE, 32-bit word i =
 *   i ^ 0x5a000000; only the owner may map it (else EACCES), whole or a
 *   prefix (else EINVAL).
 * Other ioctls: ENOTTY. read(): EINVAL. */
#include <errno.h>
#include <getopt.h>
#include <linux/videodev2.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "share/bufshare.h"
#include "cuse/cuse.h"
#include "cuse/ioctl_table.h"
#include "core/log.h"
#include "core/loop.h"

#define BUF_SIZE (1280 * 720 * 2) /* a 720p YUYV frame: 1.8 MB, page multiple */
#define BUF_COOKIE 0x10000

struct test {
	struct loop *loop;
	struct cuse_server *server;
	struct bufshare *bs;
	int memfd;
	void *owner;   /* the file that did STREAMON */
	unsigned long served;
};

static int t_open(void *ctx, struct cuse_file *file, int flags, void **data)
{
	(void)ctx;
	(void)flags;
	*data = file;
	return 0;
}

static void t_release(void *ctx, void *data)
{
	struct test *t = ctx;
	bufshare_forget(t->bs, data);
	if (t->owner == data)
		t->owner = NULL;
}

static void t_ioctl(void *ctx, void *data, struct cuse_req *req, unsigned int cmd, void *arg,
		    void *extra, size_t extra_len)
{
	struct test *t = ctx;
	(void)extra;
	(void)extra_len;
	int res = -ENOTTY;
	if (cmd == UVCUSE_IOC_HELLO) {
		res = bufshare_hello(t->bs, data, cuse_req_pid(req), cuse_req_uid(req), arg);
	} else if (cmd == VIDIOC_STREAMON) {
		res = t->owner && t->owner != data ? -EBUSY : 0;
		if (!res)
			t->owner = data;
	}
	cuse_reply_ioctl(req, res, arg);
}

static void t_read(void *ctx, void *data, struct cuse_req *req, size_t size, off_t off, int flags)
{
	(void)ctx, (void)data, (void)size, (void)off, (void)flags;
	cuse_reply_error(req, EINVAL);
}

static unsigned t_poll(void *ctx, void *data, unsigned requested)
{
	(void)requested;
	(void)ctx, (void)data;
	return 0;
}

static void t_interrupt(void *ctx, void *data, struct cuse_req *req)
{
	(void)ctx, (void)data, (void)req;
}

static int lookup(void *ctx, void *file, uint64_t offset, uint64_t length, int *memfd)
{
	struct test *t = ctx;
	if (file != t->owner)
		return -EACCES;
	if (offset != BUF_COOKIE || length == 0 || length > BUF_SIZE)
		return -EINVAL;
	*memfd = t->memfd;
	t->served++;
	return 0;
}

static void on_signal(void *data, uint32_t events)
{
	(void)events;
	loop_quit(data, 0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "runtime-dir", required_argument, NULL, 'r' },
		{ 0 },
	};
	const char *name = NULL, *runtime_dir = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n': name = optarg; break;
		case 'r': runtime_dir = optarg; break;
		default: return 2;
		}
	}
	if (!name) {
		fprintf(stderr, "usage: uvcuse-bufsharetest --name NAME [--runtime-dir DIR]\n");
		return 2;
	}
	struct test t = { .memfd = memfd_create("bufsharetest", MFD_CLOEXEC | MFD_ALLOW_SEALING) };
	if (t.memfd < 0 || ftruncate(t.memfd, BUF_SIZE) < 0) {
		perror("bufsharetest: memfd");
		return 1;
	}
	uint32_t *w = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, t.memfd, 0);
	if (w == MAP_FAILED) {
		perror("bufsharetest: mmap");
		return 1;
	}
	for (uint32_t i = 0; i < BUF_SIZE / 4; i++)
		w[i] = i ^ 0x5a000000u;

	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0 || loop_new(&t.loop) < 0) {
		perror("bufsharetest: setup");
		return 1;
	}
	loop_add(t.loop, sfd, EPOLLIN, on_signal, t.loop);
	if (bufshare_new(t.loop, runtime_dir, name, lookup, &t, &t.bs) < 0)
		return 1;
	static const struct cuse_server_ops ops = {
		.open = t_open, .release = t_release, .ioctl = t_ioctl,
		.read = t_read, .poll = t_poll, .interrupt = t_interrupt,
	};
	/* the two ioctls it answers; neither points to more memory */
	const struct cuse_ioctl_desc layouts[] = {
		cuse_ioctl_describe(UVCUSE_IOC_HELLO, "UVCUSE_IOC_HELLO", false, NULL),
		cuse_ioctl_describe(VIDIOC_STREAMON, "VIDIOC_STREAMON", false, NULL),
	};
	struct cuse_server_config cfg = { .devname = name, .ioctls = layouts, .n_ioctls = 2 };
	int err = cuse_server_new(t.loop, &cfg, &ops, &t, &t.server);
	if (err < 0) {
		fprintf(stderr, "bufsharetest: cannot serve /dev/%s: %s\n", name, strerror(-err));
		return 1;
	}
	log_info("bufsharetest: serving /dev/%s, socket %s", name, bufshare_path(t.bs));
	int status = loop_run(t.loop);
	/* the word the clients wrote (shared memory proves both ways) */
	log_info("bufsharetest: exit %d; %lu buffers served; last word 0x%08x", status, t.served,
		 w[BUF_SIZE / 4 - 1]);
	cuse_server_free(t.server);
	bufshare_free(t.bs);
	loop_free(t.loop);
	munmap(w, BUF_SIZE);
	close(t.memfd);
	close(sfd);
	return status;
}
