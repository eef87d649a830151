/* SPDX-License-Identifier: GPL-2.0-or-later */
/* accept4() that sheds a connection when no fd is left (see accept.h). */
#include "core/accept.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/log.h"

void accept_reserve_init(struct accept_reserve *r, const char *what)
{
	r->what = what;
	r->fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

void accept_reserve_free(struct accept_reserve *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

/* The reserve given up for a moment, to take the waiting connection and
 * end it. */
static void shed(int listen_fd, struct accept_reserve *r, int err)
{
	static struct log_limit limit;
	if (r->fd >= 0) {
		close(r->fd);
		int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0)
			close(fd);
		r->fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	if (log_allowed(&limit, 2))
		log_warn("%s: refused a connection: %s (the daemon's open files: see LimitNOFILE=)",
			 r->what, strerror(err));
}

int accept_or_shed(int listen_fd, struct accept_reserve *r)
{
	for (;;) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0)
			return fd;
		int err = errno;
		if (err == EINTR || err == ECONNABORTED)
			continue;
		if (err == EMFILE || err == ENFILE)
			shed(listen_fd, r, err);
		return -err;
	}
}
