/* SPDX-License-Identifier: GPL-2.0-or-later */
/* accept4() on a listening socket served from a level-triggered loop,
 * without spinning when the daemon is out of file descriptors: a pending
 * connection the daemon cannot take would wake the loop again at once,
 * for ever. A reserve fd, held until then, lets it take the connection
 * and close it (the client sees its connection end), so the wake-ups
 * stop; the refusal is logged a few times a second at most. */
#ifndef UVCUSE_ACCEPT_H
#define UVCUSE_ACCEPT_H

struct accept_reserve {
	int fd;                /* /dev/null, held for the moment it is needed */
	const char *what;      /* "buffer socket": for the log line */
};

/* Opens the reserve (fd -1 when it cannot: accepts then just fail). */
void accept_reserve_init(struct accept_reserve *r, const char *what);
void accept_reserve_free(struct accept_reserve *r);

/* A new connection on listen_fd, non-blocking and close-on-exec: its fd,
 * or -EAGAIN (none waiting), -EMFILE/-ENFILE (one was waiting: shed), or
 * another -errno. */
int accept_or_shed(int listen_fd, struct accept_reserve *r);

#endif
