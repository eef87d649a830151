/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's one event loop (epoll). Every fd the daemon waits on (CUSE
 * channel, libusb's pollfds, signalfd) is registered here with a callback;
 * callbacks run on the loop thread only, so the state they touch needs no
 * locks. */
#ifndef UVCUSE_LOOP_H
#define UVCUSE_LOOP_H

#include <stdint.h>

struct loop;

/* events: EPOLLIN/EPOLLOUT/... as epoll reported them. */
typedef void (*loop_fd_cb)(void *data, uint32_t events);

int loop_new(struct loop **out);
void loop_free(struct loop *loop);

/* Watches fd for events (EPOLLIN...). One registration per fd.
 * Returns 0 or -errno. */
int loop_add(struct loop *loop, int fd, uint32_t events, loop_fd_cb cb, void *data);
int loop_modify(struct loop *loop, int fd, uint32_t events);
/* Safe from inside any callback, also for the fd being dispatched. */
void loop_remove(struct loop *loop, int fd);

/* Runs callbacks until loop_quit(); returns the status given to it. */
int loop_run(struct loop *loop);
/* Waits up to timeout_ms for events and runs their callbacks once.
 * Returns 1 when loop_quit() was called (status in *status), 0 otherwise,
 * or -errno. */
int loop_run_once(struct loop *loop, int timeout_ms, int *status);
void loop_quit(struct loop *loop, int status);

#endif
