/* SPDX-License-Identifier: GPL-2.0-or-later */
/* See udev_wait.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "core/loop.h"
#include "service/udev_wait.h"

struct udev_wait {
	int fd;
	char dir[256];
	struct timespec since; /* entries older than this are a former node's */
	char entry[32];        /* "c<major>:<minor>" once known */
	bool done;
};

static bool newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

/* The entry exists and was written since the watch began. */
static bool entry_fresh(const struct udev_wait *w)
{
	char path[300];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", w->dir, w->entry);
	return stat(path, &st) == 0 && newer(&st.st_mtim, &w->since);
}

static void on_inotify(void *data, uint32_t events)
{
	(void)events;
	struct udev_wait *w = data;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	while ((n = read(w->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			if (ev->len && w->entry[0] && !strcmp(ev->name, w->entry))
				w->done = true;
			p += sizeof(*ev) + ev->len;
		}
	}
}

int udev_wait_new(const char *dir, struct udev_wait **out)
{
	struct udev_wait *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	snprintf(w->dir, sizeof(w->dir), "%s", dir ? dir : "/run/udev/data");
	clock_gettime(CLOCK_REALTIME, &w->since);
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	/* udev writes a temporary file and renames it into place */
	if (w->fd < 0 || inotify_add_watch(w->fd, w->dir, IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
		int err = -errno;
		udev_wait_free(w);
		return err;
	}
	*out = w;
	return 0;
}

int udev_wait_for(struct udev_wait *w, struct loop *loop, dev_t devnum, int timeout_ms,
		  int *status)
{
	snprintf(w->entry, sizeof(w->entry), "c%u:%u", major(devnum), minor(devnum));
	int err = loop_add(loop, w->fd, EPOLLIN, on_inotify, w);
	if (err)
		return err;
	on_inotify(w, 0); /* events that came before the name was known */
	int ret = 0;
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		if (w->done || entry_fresh(w)) {
			ret = 1;
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		long waited = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
		if (waited >= timeout_ms)
			break;
		int quit = loop_run_once(loop, (int)(timeout_ms - waited), status);
		if (quit < 0) {
			ret = quit;
			break;
		}
		if (quit > 0) {
			ret = -EINTR;
			break;
		}
	}
	loop_remove(loop, w->fd);
	return ret;
}

void udev_wait_free(struct udev_wait *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	free(w);
}
