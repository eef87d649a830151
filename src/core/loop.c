/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/loop.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

/* A registration. Removed ones are unlinked from epoll at once but freed
 * only after the batch being dispatched, since a later event of that batch
 * may still point at them. */
struct watch {
	int fd;
	loop_fd_cb cb;
	void *data;
	bool removed;
	struct watch *next;
};

struct loop {
	int epfd;
	bool quit;
	int status;
	struct watch *watches;
};

int loop_new(struct loop **out)
{
	struct loop *loop = calloc(1, sizeof(*loop));
	if (!loop)
		return -ENOMEM;
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (loop->epfd < 0) {
		int err = -errno;
		free(loop);
		return err;
	}
	*out = loop;
	return 0;
}

static void free_removed(struct loop *loop)
{
	struct watch **p = &loop->watches;
	while (*p) {
		struct watch *w = *p;
		if (w->removed) {
			*p = w->next;
			free(w);
		} else {
			p = &w->next;
		}
	}
}

void loop_free(struct loop *loop)
{
	if (!loop)
		return;
	for (struct watch *w = loop->watches; w; w = w->next)
		w->removed = true;
	free_removed(loop);
	close(loop->epfd);
	free(loop);
}

static struct watch *find(struct loop *loop, int fd)
{
	for (struct watch *w = loop->watches; w; w = w->next)
		if (w->fd == fd && !w->removed)
			return w;
	return NULL;
}

int loop_add(struct loop *loop, int fd, uint32_t events, loop_fd_cb cb, void *data)
{
	if (find(loop, fd))
		return -EEXIST;
	struct watch *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (struct watch){ .fd = fd, .cb = cb, .data = data, .next = loop->watches };
	struct epoll_event ev = { .events = events, .data.ptr = w };
	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		int err = -errno;
		free(w);
		return err;
	}
	loop->watches = w;
	return 0;
}

int loop_modify(struct loop *loop, int fd, uint32_t events)
{
	struct watch *w = find(loop, fd);
	if (!w)
		return -ENOENT;
	struct epoll_event ev = { .events = events, .data.ptr = w };
	return epoll_ctl(loop->epfd, EPOLL_CTL_MOD, fd, &ev) < 0 ? -errno : 0;
}

void loop_remove(struct loop *loop, int fd)
{
	struct watch *w = find(loop, fd);
	if (!w)
		return;
	epoll_ctl(loop->epfd, EPOLL_CTL_DEL, fd, NULL);
	w->removed = true;
}

void loop_quit(struct loop *loop, int status)
{
	loop->quit = true;
	loop->status = status;
}

int loop_run_once(struct loop *loop, int timeout_ms, int *status)
{
	struct epoll_event evs[16];
	int n = epoll_wait(loop->epfd, evs, 16, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n && !loop->quit; i++) {
		struct watch *w = evs[i].data.ptr;
		if (!w->removed)
			w->cb(w->data, evs[i].events);
	}
	free_removed(loop);
	if (!loop->quit)
		return 0;
	loop->quit = false;
	if (status)
		*status = loop->status;
	return 1;
}

int loop_run(struct loop *loop)
{
	for (;;) {
		int status, r = loop_run_once(loop, -1, &status);
		if (r < 0)
			return r;
		if (r > 0)
			return status;
	}
}
