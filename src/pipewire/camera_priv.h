/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to the files of one published camera (camera.h): the camera's
 * state and what the files ask of each other. camera.c: the pw_stream's
 * events, publishing, republishing after an error, the camera's life;
 * camera_probe.c: opening the node and reading what it offers;
 * camera_stream.c: the negotiated mode on the node, its buffers and
 * frames between the node and PipeWire. */
#ifndef UVCUSE_BRIDGE_CAMERA_PRIV_H
#define UVCUSE_BRIDGE_CAMERA_PRIV_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <pipewire/pipewire.h>

#include "camera.h"
#include "modes.h"

/* Buffers asked of the node; PipeWire's consumers agree on as many or
 * fewer (pipewiresrc keeps a few, the graph one in flight). */
#define CAMERA_BUFFERS 8
/* After an error the node is published again this late (ms), doubling up
 * to REVIVE_MAX_MS while it keeps failing. */
#define REVIVE_MS 500
#define REVIVE_MAX_MS 10000

enum buf_owner {
	OWNER_PIPEWIRE, /* in pw_stream's free list, or with a consumer */
	OWNER_BRIDGE,   /* dequeued from pw_stream, not queued to the node */
	OWNER_NODE,     /* queued to the node (QBUF) */
};

struct camera_buf {
	int memfd;
	int dmabuf; /* a dma-buf over the same memory (udmabuf), or -1 */
	uint32_t length;
	struct pw_buffer *pwb; /* NULL until PipeWire adds it */
	enum buf_owner owner;
};

/* One published camera. */
struct bridge_camera {
	char path[PATH_MAX];
	char card[33];
	char name[160];   /* node.name */
	char vendor[8], product[8], serial[128];
	struct pw_core *core;
	struct pw_loop *loop;
	struct pw_stream *stream;
	struct spa_hook listener;
	bool in_graph; /* the published node has reached PipeWire (PAUSED) */
	struct spa_source *revive; /* republishes after an error */
	unsigned revive_ms;
	/* while every buffer is with PipeWire, a cycle of the graph now and
	 * then gives back the ones consumers are done with (a driving
	 * pw_stream recycles them only when it runs) */
	struct spa_source *starved;
	unsigned enum_ioctls;
	struct bridge_modes modes;
	int fd; /* -1 while no format is negotiated */
	struct spa_source *io;
	bool io_on; /* the node's fd is watched (some buffer is queued to it) */
	struct bridge_mode mode;
	uint32_t sizeimage, bytesperline;
	unsigned n_bufs;
	struct camera_buf bufs[CAMERA_BUFFERS];
	bool dmabufs; /* every buffer has a dma-buf: SPA_DATA_DmaBuf offered */
	bool gave_dmabufs; /* the consumers took them (the last buffer added) */
	bool streaming;
	uint64_t frames;
};

/* --- camera.c ------------------------------------------------------------ */

/* A one-shot timer ms from now. */
void camera_arm_ms(struct pw_loop *loop, struct spa_source *timer, unsigned ms);

/* --- camera_probe.c ------------------------------------------------------ */

/* ioctl() again after EINTR: 0, or -errno. */
int camera_ioctl(int fd, unsigned long req, void *arg);
/* Opens the node non-blocking: the fd, or -errno. */
int camera_open_node(const char *path);
/* Reads what the node offers (its modes, card name and udev's IDs) and
 * names the PipeWire node. -EACCES: not ours to open; -ENOTTY: not a
 * uvcuse capture node. */
int camera_probe(struct bridge_camera *c);

/* --- camera_stream.c ----------------------------------------------------- */

/* S_FMT, S_PARM and buffers for a negotiated mode (the node opened again
 * for it): 0, or -errno (-EBUSY when the camera streams another mode). */
int camera_configure(struct bridge_camera *c, const struct bridge_mode *m);
/* Once the pw_stream streams: the buffers the bridge holds and those
 * consumers are done with queued, STREAMON, the node's fd watched; a
 * failure puts the pw_stream in error (camera_fail_stream). */
void camera_start_stream(struct bridge_camera *c);
/* The node's fd no longer watched, STREAMOFF while streaming: the buffers
 * the node had are the bridge's again. */
void camera_stop_stream(struct bridge_camera *c);
/* Gives the node's buffers back and closes it: the daemon may stop the
 * camera, and leave after an unplug. */
void camera_release_node(struct bridge_camera *c);
/* Takes every buffer consumers are done with; queues them to the node
 * while streaming. */
void camera_take_free_buffers(struct bridge_camera *c);
/* Logs what failed, releases the node and puts the pw_stream in error. */
void camera_fail_stream(struct bridge_camera *c, int err, const char *what);
/* The starved timer: a cycle of the graph, which gives buffers back. */
void camera_on_starved(void *data, uint64_t expirations);

#endif
