/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The CUSE session in front of the device under test (device_fakes.h):
 * src/cuse/cuse.h as the device uses it. The test makes the requests an
 * app's system calls would and reads the answers the device gives. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/ioctl.h>

#include "device_fakes.h"

struct fake_cuse fake_cuse;

struct cuse_server {
	int unused;
};
static struct cuse_server the_server;

int cuse_server_new(struct loop *loop, const struct cuse_server_config *cfg,
		    const struct cuse_server_ops *ops, void *ctx, struct cuse_server **out)
{
	(void)loop;
	if (fake_cuse.new_err)
		return fake_cuse.new_err;
	fake_cuse.ops = ops;
	fake_cuse.ctx = ctx;
	snprintf(fake_cuse.devname, sizeof(fake_cuse.devname), "%s", cfg->devname);
	*out = &the_server;
	return 0;
}

void cuse_server_free(struct cuse_server *server)
{
	if (server)
		fake_cuse.freed = true;
}

/* What CUSE lets one ioctl move: as Linux 6.1's fuse (32 pages). */
size_t cuse_max_chunk(void)
{
	return 128 * 1024;
}

pid_t cuse_req_pid(const struct cuse_req *req)
{
	return req->pid;
}

uid_t cuse_req_uid(const struct cuse_req *req)
{
	return req->uid;
}

void cuse_req_park(struct cuse_req *req)
{
	req->parked = true;
}

static void answer(struct cuse_req *req, int result)
{
	ck_assert_msg(!req->answered, "a request answered twice");
	req->answered = true;
	req->result = result;
}

void cuse_reply_ioctl(struct cuse_req *req, int result, const void *arg)
{
	answer(req, result);
	if (arg && req->arg_size && arg != req->arg)
		memcpy(req->arg, arg, req->arg_size);
}

void cuse_reply_ioctl_data(struct cuse_req *req, int result, const void *arg,
			   unsigned long user_addr, const void *data, size_t len)
{
	(void)user_addr;
	cuse_reply_ioctl(req, result, arg);
	req->data_len = len;
	memcpy(req->data, data, len < sizeof(req->data) ? len : sizeof(req->data));
}

void cuse_reply_read(struct cuse_req *req, const void *data, size_t len)
{
	answer(req, (int)len);
	req->data_len = len;
	memcpy(req->data, data, len < sizeof(req->data) ? len : sizeof(req->data));
}

void cuse_reply_error(struct cuse_req *req, int err)
{
	answer(req, -err);
}

void cuse_file_notify_poll(struct cuse_file *file)
{
	file->poll_notified++;
}

int cuse_file_flags(const struct cuse_file *file)
{
	return file->flags;
}

pid_t cuse_file_opener(const struct cuse_file *file)
{
	return file->opener;
}

uid_t cuse_file_opener_uid(const struct cuse_file *file)
{
	return file->opener_uid;
}

void cuse_file_set_flags(struct cuse_file *file, int flags)
{
	file->flags = flags;
}

struct cuse_file *fake_cuse_open(pid_t pid, int flags, int *err)
{
	return fake_cuse_open_as(pid, getuid(), flags, err);
}

struct cuse_file *fake_cuse_open_as(pid_t pid, uid_t uid, int flags, int *err)
{
	struct cuse_file *f = calloc(1, sizeof(*f));
	ck_assert_ptr_nonnull(f);
	f->flags = flags;
	f->opener = pid ? pid : getpid();
	f->opener_uid = uid;
	int res = fake_cuse.ops->open(fake_cuse.ctx, f, flags, &f->data);
	if (err)
		*err = -res;
	if (res) {
		free(f);
		return NULL;
	}
	return f;
}

void fake_cuse_release(struct cuse_file *f)
{
	fake_cuse.ops->release(fake_cuse.ctx, f->data);
	free(f);
}

static struct cuse_req *new_req(struct cuse_file *f)
{
	struct cuse_req *req = calloc(1, sizeof(*req));
	ck_assert_ptr_nonnull(req);
	req->file = f;
	req->pid = f->opener;
	req->uid = getuid();
	return req;
}

struct cuse_req *fake_cuse_ioctl(struct cuse_file *f, unsigned int cmd, const void *arg,
				 void *extra, size_t extra_len)
{
	struct cuse_req *req = new_req(f);
	req->arg_size = _IOC_SIZE(cmd);
	ck_assert_uint_le(req->arg_size, sizeof(req->arg));
	if (arg)
		memcpy(req->arg, arg, req->arg_size);
	/* the device answers into the argument as CUSE hands it over */
	fake_cuse.ops->ioctl(fake_cuse.ctx, f->data, req, cmd, req->arg, extra, extra_len);
	return req;
}

struct cuse_req *fake_cuse_read(struct cuse_file *f, size_t size, off_t off)
{
	struct cuse_req *req = new_req(f);
	fake_cuse.ops->read(fake_cuse.ctx, f->data, req, size, off, f->flags);
	return req;
}

unsigned fake_cuse_poll(struct cuse_file *f, unsigned requested)
{
	return fake_cuse.ops->poll(fake_cuse.ctx, f->data, requested);
}

void fake_cuse_interrupt(struct cuse_file *f, struct cuse_req *req)
{
	fake_cuse.ops->interrupt(fake_cuse.ctx, f->data, req);
}
