/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-appfault: a misbehaving V4L2 app, for tests/e2e/daemon-appfaults.sh.
 * Each mode prints lines that are diffed between uvcvideo's node and ours
 * (badptr, badsize) or judged by the scenario (the others). The ioctl
 * numbers come from the kernel's uapi headers, not from the daemon's table,
 * so that the test does not share the daemon's mistakes. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <linux/usb/video.h>
#include <linux/uvcvideo.h>
#include <linux/videodev2.h>

#include "controls.h" /* tests/vcam: vcam_xu_guid, VCAM_XU_* */
#include "client/memfd_fetch.h" /* uvcuse_open_channel */
#include "uvcuse/uvcuse.h"
#include "descriptors.h"

#define IOCTL(name) { #name, name }
static const struct { const char *name; unsigned long cmd; } ioctls[] = {
	IOCTL(VIDIOC_QUERYCAP), IOCTL(VIDIOC_ENUM_FMT), IOCTL(VIDIOC_G_FMT), IOCTL(VIDIOC_S_FMT),
	IOCTL(VIDIOC_REQBUFS), IOCTL(VIDIOC_QUERYBUF), IOCTL(VIDIOC_G_FBUF), IOCTL(VIDIOC_S_FBUF),
	IOCTL(VIDIOC_OVERLAY), IOCTL(VIDIOC_QBUF), IOCTL(VIDIOC_EXPBUF), IOCTL(VIDIOC_DQBUF),
	IOCTL(VIDIOC_STREAMON), IOCTL(VIDIOC_STREAMOFF), IOCTL(VIDIOC_G_PARM), IOCTL(VIDIOC_S_PARM),
	IOCTL(VIDIOC_G_STD), IOCTL(VIDIOC_S_STD), IOCTL(VIDIOC_ENUMSTD), IOCTL(VIDIOC_ENUMINPUT),
	IOCTL(VIDIOC_G_CTRL), IOCTL(VIDIOC_S_CTRL), IOCTL(VIDIOC_G_TUNER), IOCTL(VIDIOC_S_TUNER),
	IOCTL(VIDIOC_G_AUDIO), IOCTL(VIDIOC_S_AUDIO), IOCTL(VIDIOC_QUERYCTRL),
	IOCTL(VIDIOC_QUERYMENU), IOCTL(VIDIOC_G_INPUT), IOCTL(VIDIOC_S_INPUT), IOCTL(VIDIOC_G_EDID),
	IOCTL(VIDIOC_S_EDID), IOCTL(VIDIOC_G_OUTPUT), IOCTL(VIDIOC_S_OUTPUT),
	IOCTL(VIDIOC_ENUMOUTPUT), IOCTL(VIDIOC_G_AUDOUT), IOCTL(VIDIOC_S_AUDOUT),
	IOCTL(VIDIOC_G_MODULATOR), IOCTL(VIDIOC_S_MODULATOR), IOCTL(VIDIOC_G_FREQUENCY),
	IOCTL(VIDIOC_S_FREQUENCY), IOCTL(VIDIOC_CROPCAP), IOCTL(VIDIOC_G_CROP), IOCTL(VIDIOC_S_CROP),
	IOCTL(VIDIOC_G_JPEGCOMP), IOCTL(VIDIOC_S_JPEGCOMP), IOCTL(VIDIOC_QUERYSTD),
	IOCTL(VIDIOC_TRY_FMT), IOCTL(VIDIOC_ENUMAUDIO), IOCTL(VIDIOC_ENUMAUDOUT),
	IOCTL(VIDIOC_G_PRIORITY), IOCTL(VIDIOC_S_PRIORITY), IOCTL(VIDIOC_G_SLICED_VBI_CAP),
	IOCTL(VIDIOC_LOG_STATUS), IOCTL(VIDIOC_G_EXT_CTRLS), IOCTL(VIDIOC_S_EXT_CTRLS),
	IOCTL(VIDIOC_TRY_EXT_CTRLS), IOCTL(VIDIOC_ENUM_FRAMESIZES),
	IOCTL(VIDIOC_ENUM_FRAMEINTERVALS), IOCTL(VIDIOC_G_ENC_INDEX), IOCTL(VIDIOC_ENCODER_CMD),
	IOCTL(VIDIOC_TRY_ENCODER_CMD), IOCTL(VIDIOC_S_HW_FREQ_SEEK), IOCTL(VIDIOC_CREATE_BUFS),
	IOCTL(VIDIOC_PREPARE_BUF), IOCTL(VIDIOC_G_SELECTION), IOCTL(VIDIOC_S_SELECTION),
	IOCTL(VIDIOC_DECODER_CMD), IOCTL(VIDIOC_TRY_DECODER_CMD), IOCTL(VIDIOC_ENUM_DV_TIMINGS),
	IOCTL(VIDIOC_QUERY_DV_TIMINGS), IOCTL(VIDIOC_DV_TIMINGS_CAP), IOCTL(VIDIOC_ENUM_FREQ_BANDS),
	IOCTL(VIDIOC_DBG_G_CHIP_INFO), IOCTL(VIDIOC_QUERY_EXT_CTRL), IOCTL(VIDIOC_SUBSCRIBE_EVENT),
	IOCTL(VIDIOC_UNSUBSCRIBE_EVENT), IOCTL(VIDIOC_DQEVENT), IOCTL(VIDIOC_S_DV_TIMINGS),
	IOCTL(VIDIOC_G_DV_TIMINGS), IOCTL(UVCIOC_CTRL_MAP), IOCTL(UVCIOC_CTRL_QUERY),
};
#define N_IOCTLS (sizeof(ioctls) / sizeof(ioctls[0]))

static const char *errname(int e)
{
	static char buf[16];
	switch (e) {
	case 0: return "ok";
	case EFAULT: return "EFAULT";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case EBUSY: return "EBUSY";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case ENOMEM: return "ENOMEM";
	case EAGAIN: return "EAGAIN";
	case EIO: return "EIO";
	case ENODATA: return "ENODATA";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case EPIPE: return "EPIPE";
	case EEXIST: return "EEXIST";
	case EILSEQ: return "EILSEQ";
	case EINTR: return "EINTR";
	case ENODEV: return "ENODEV";
	default:
		snprintf(buf, sizeof(buf), "errno%d", e);
		return buf;
	}
}

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? errno : 0;
}

static int open_node(const char *node, int flags)
{
	int fd = open(node, O_RDWR | flags);
	if (fd < 0) {
		fprintf(stderr, "uvcuse-appfault: %s: %s\n", node, strerror(errno));
		exit(1);
	}
	return fd;
}

/* An address that faults: a page mapped PROT_NONE. */
static void *bad_page(void)
{
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("uvcuse-appfault: mmap");
		exit(1);
	}
	return p;
}

/* badptr: every ioctl with a size, given an address that faults and NULL;
 * then the ioctls whose argument carries a pointer, with that pointer bad. */
static int cmd_badptr(const char *node)
{
	int fd = open_node(node, O_NONBLOCK);
	void *bad = bad_page();
	for (size_t i = 0; i < N_IOCTLS; i++) {
		if (!_IOC_SIZE(ioctls[i].cmd))
			continue;
		int e1 = xioctl(fd, ioctls[i].cmd, bad);
		int e2 = xioctl(fd, ioctls[i].cmd, NULL);
		printf("%s: %s, NULL: %s\n", ioctls[i].name, errname(e1), errname(e2));
	}

	static const unsigned long ext[] = { VIDIOC_G_EXT_CTRLS, VIDIOC_S_EXT_CTRLS,
					     VIDIOC_TRY_EXT_CTRLS };
	static const char *const ext_names[] = { "G_EXT_CTRLS", "S_EXT_CTRLS", "TRY_EXT_CTRLS" };
	for (int i = 0; i < 3; i++) {
		struct v4l2_ext_controls c = { .which = V4L2_CTRL_WHICH_CUR_VAL, .count = 1,
					       .controls = bad };
		printf("%s with controls bad: %s\n", ext_names[i], errname(xioctl(fd, ext[i], &c)));
		c.count = 2;
		c.controls = NULL;
		printf("%s with controls NULL: %s\n", ext_names[i], errname(xioctl(fd, ext[i], &c)));
	}
	struct uvc_xu_control_query q = { .unit = VCAM_ID_EXTENSION,
					  .selector = VCAM_XU_TEST_PATTERN,
					  .query = UVC_GET_CUR, .size = 2, .data = bad };
	printf("UVCIOC_CTRL_QUERY GET_CUR into bad: %s\n", errname(xioctl(fd, UVCIOC_CTRL_QUERY, &q)));
	q.query = UVC_SET_CUR;
	printf("UVCIOC_CTRL_QUERY SET_CUR from bad: %s\n", errname(xioctl(fd, UVCIOC_CTRL_QUERY, &q)));
	q.query = UVC_GET_LEN;
	q.data = NULL;
	printf("UVCIOC_CTRL_QUERY GET_LEN into NULL: %s\n", errname(xioctl(fd, UVCIOC_CTRL_QUERY, &q)));

	struct uvc_xu_control_mapping m;
	memset(&m, 0, sizeof(m));
	m.id = V4L2_CID_USER_BASE + 0x1800;
	snprintf((char *)m.name, sizeof(m.name), "Bad Menu");
	memcpy(m.entity, vcam_xu_guid, sizeof(m.entity));
	m.selector = VCAM_XU_LED_MODE;
	m.size = 8;
	m.v4l2_type = V4L2_CTRL_TYPE_MENU;
	m.data_type = UVC_CTRL_DATA_TYPE_ENUM;
	m.menu_count = 2;
	m.menu_info = bad;
	printf("UVCIOC_CTRL_MAP menu_info bad: %s\n", errname(xioctl(fd, UVCIOC_CTRL_MAP, &m)));
	close(fd);
	return 0;
}

/* badsize: each ioctl's number with its size field wrong; numbers no
 * driver knows. The argument is a valid zeroed buffer. */
static int cmd_badsize(const char *node)
{
	int fd = open_node(node, O_NONBLOCK);
	static uint8_t buf[1 << 14];
	for (size_t i = 0; i < N_IOCTLS; i++) {
		unsigned long c = ioctls[i].cmd;
		unsigned size = _IOC_SIZE(c);
		unsigned long bigger = _IOC(_IOC_DIR(c), _IOC_TYPE(c), _IOC_NR(c), size + 8);
		unsigned long smaller = _IOC(_IOC_DIR(c), _IOC_TYPE(c), _IOC_NR(c), size ? size - 1 : 4);
		memset(buf, 0, sizeof(buf));
		int e1 = xioctl(fd, bigger, buf);
		memset(buf, 0, sizeof(buf));
		int e2 = xioctl(fd, smaller, buf);
		printf("%s size+8: %s, size-1: %s\n", ioctls[i].name, errname(e1), errname(e2));
	}
	static const struct { const char *name; unsigned long cmd; } unknown[] = {
		{ "_IO('V', 200)", _IO('V', 200) },
		{ "_IOWR('V', 255, 64)", _IOWR('V', 255, uint8_t[64]) },
		{ "_IOWR('u', 0x22, 16)", _IOWR('u', 0x22, uint8_t[16]) },
		{ "_IOR('X', 1, 4)", _IOR('X', 1, uint32_t) },
		{ "_IOW('V', 0, 16 KiB - 1)", _IOW('V', 0, uint8_t[(1 << 14) - 1]) },
		{ "0", 0 },
		{ "0xffffffff", 0xffffffffu },
	};
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		memset(buf, 0, sizeof(buf));
		printf("%s: %s\n", unknown[i].name, errname(xioctl(fd, unknown[i].cmd, buf)));
	}
	close(fd);
	return 0;
}

/* xorshift64*: reproducible from the seed the scenario prints */
static uint64_t rng;
static uint64_t next_random(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "uvcuse-appfault: a call took more than 20 s\n";
	if (write(2, msg, sizeof(msg) - 1) < 0) {
		/* nothing more to say */
	}
	_exit(3);
}

/* random: for SECONDS, ioctls with numbers from the table (some with a
 * wrong size) and outside it, and arguments of random bytes (pointers in
 * them point anywhere), now and then a read() or a reopen. The node is
 * opened non-blocking, so that nothing waits for a frame; a call taking
 * more than 20 s is a hang (exit 3). Prints the calls by answer. */
static int cmd_random(const char *node, double seconds, uint64_t seed)
{
	rng = seed ? seed : 1;
	signal(SIGALRM, on_alarm);
	int fd = open_node(node, O_NONBLOCK);
	static uint8_t arg[1 << 14];
	static uint8_t frame[1 << 16];
	unsigned long counts[134] = { 0 }; /* by errno; the last: others */
	unsigned long calls = 0, reads = 0, reopens = 0;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		uint64_t r = next_random();
		unsigned long cmd;
		unsigned pick = r % 10;
		if (pick < 6) {
			cmd = ioctls[(r >> 8) % N_IOCTLS].cmd;
		} else if (pick < 8) {
			unsigned long c = ioctls[(r >> 8) % N_IOCTLS].cmd;
			cmd = _IOC(_IOC_DIR(c), _IOC_TYPE(c), _IOC_NR(c), (r >> 24) % 512);
		} else {
			cmd = (unsigned long)(uint32_t)(r >> 16);
		}
		/* random bytes, some of them zeros (small counts and indexes
		 * reach further into the handlers than huge ones) */
		for (size_t k = 0; k < 1024; k += 8) {
			uint64_t v = next_random();
			if (v & 1)
				v &= 0xff;
			memcpy(arg + k, &v, 8);
		}
		alarm(20);
		int e = xioctl(fd, cmd, (r >> 60) == 0 ? (void *)(uintptr_t)next_random() : arg);
		if ((r >> 40) % 50 == 0) {
			ssize_t n = read(fd, frame, (r >> 20) % sizeof(frame));
			(void)n;
			reads++;
		}
		if ((r >> 48) % 500 == 0) {
			close(fd);
			fd = open_node(node, O_NONBLOCK);
			reopens++;
		}
		alarm(0);
		counts[e < 133 ? e : 133]++;
		calls++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	close(fd);
	printf("%lu ioctls, %lu reads, %lu reopens in %.0f s:", calls, reads, reopens, seconds);
	for (int e = 0; e < 134; e++)
		if (counts[e])
			printf(" %s %lu", e == 133 ? "other" : errname(e), counts[e]);
	printf("\n");
	return 0;
}

/* openclose: N cycles of open, QUERYCAP, close. */
static int cmd_openclose(const char *node, long n)
{
	for (long i = 0; i < n; i++) {
		int fd = open_node(node, 0);
		struct v4l2_capability cap;
		if (xioctl(fd, VIDIOC_QUERYCAP, &cap)) {
			fprintf(stderr, "uvcuse-appfault: QUERYCAP failed in cycle %ld\n", i);
			return 1;
		}
		close(fd);
	}
	printf("%ld open/QUERYCAP/close cycles\n", n);
	return 0;
}

/* manyfiles: FILES files open at once; STREAMERS of them in turn read
 * FRAMES frames (read(): the first reader owns the queue until it closes)
 * while the others stay open; each frame must be sizeimage bytes. */
static int cmd_manyfiles(const char *node, int files, int streamers, int frames)
{
	int *fds = calloc((size_t)files, sizeof(int));
	if (!fds || streamers > files)
		return 2;
	for (int i = 0; i < files; i++)
		fds[i] = open_node(node, 0);
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	if (xioctl(fds[0], VIDIOC_G_FMT, &f))
		return 1;
	size_t size = f.fmt.pix.sizeimage;
	uint8_t *buf = malloc(size + 4096);
	if (!buf)
		return 1;
	int good = 0;
	for (int s = 0; s < streamers; s++) {
		int k = s * (files / streamers);
		for (int i = 0; i < frames; i++) {
			ssize_t n = read(fds[k], buf, size + 4096);
			if (n != (ssize_t)size) {
				fprintf(stderr, "uvcuse-appfault: file %d frame %d: read() gave %zd (%s), "
					"expected %zu\n", k, i, n, n < 0 ? strerror(errno) : "", size);
				return 1;
			}
			good++;
		}
		close(fds[k]);
		fds[k] = -1;
	}
	int answered = 0;
	for (int i = 0; i < files; i++) {
		struct v4l2_capability cap;
		if (fds[i] >= 0 && xioctl(fds[i], VIDIOC_QUERYCAP, &cap) == 0)
			answered++;
		if (fds[i] >= 0)
			close(fds[i]);
	}
	printf("%d files, %d streamed in turn: %d frames of %zu bytes; the other %d files "
	       "answered QUERYCAP\n", files, streamers, good, size, answered);
	free(buf);
	free(fds);
	return answered == files - streamers ? 0 : 1;
}

/* ioctls: G_EXT_CTRLS of four controls and QUERYCAP in a loop, "ready"
 * once started: a process to SIGKILL at any point of its rounds. */
static int cmd_ioctls(const char *node)
{
	int fd = open_node(node, 0);
	struct v4l2_ext_control c[4] = {
		{ .id = V4L2_CID_BRIGHTNESS }, { .id = V4L2_CID_CONTRAST },
		{ .id = V4L2_CID_SATURATION }, { .id = V4L2_CID_GAMMA },
	};
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		struct v4l2_ext_controls cs = { .which = V4L2_CTRL_WHICH_CUR_VAL, .count = 4,
						.controls = c };
		struct v4l2_capability cap;
		if (xioctl(fd, VIDIOC_G_EXT_CTRLS, &cs) || xioctl(fd, VIDIOC_QUERYCAP, &cap))
			return 1;
	}
}

/* flood: holds as many connections to the buffer socket (SEQPACKET) as it
 * can (up to 900), opening new ones as the daemon closes them, for
 * SECONDS; prints how many it opened and how many the daemon closed. */
static int cmd_flood(const char *path, double seconds)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	static struct pollfd held[900];
	int n = 0;
	unsigned long opened = 0, closed = 0, refused = 0;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		while (n < 900) {
			int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
			if (s < 0)
				break;
			if (connect(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
				if (!refused++)
					printf("flood: first refusal: %s\n", strerror(errno));
				close(s);
				break;
			}
			held[n++] = (struct pollfd){ .fd = s, .events = POLLIN };
			opened++;
		}
		if (poll(held, (nfds_t)n, 100) > 0) {
			for (int i = 0; i < n; i++) {
				if (!held[i].revents)
					continue;
				char b[256];
				if (read(held[i].fd, b, sizeof(b)) <= 0) {
					close(held[i].fd);
					held[i--] = held[--n];
					closed++;
				}
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	printf("flood: %lu connections opened, %lu closed by the daemon, %lu refused, %d held at "
	       "the end\n", opened, closed, refused, n);
	return 0;
}

/* channel: a hostile client of the fast path (include/uvcuse/uvcuse.h).
 * File B owns the queue and streams (4 MMAP buffers); file A, opened by
 * this same process, opens fast-path channels again and again for SECONDS
 * and sends them random requests (QBUF/DQBUF of any index, memory and
 * type, CANCELs of any number, a second request before the answer),
 * garbage of random length, and hangs up with requests in flight. No
 * answer on A's channels may ever hand out a buffer (B owns the queue: A
 * gets EBUSY or EINVAL), a request must be answered within 10 s, and B's
 * stream must go on. Prints what the daemon did. */
static int cmd_channel(const char *node, double seconds, unsigned long long seed)
{
	srand48((long)seed);
	int b = open(node, O_RDWR | O_NONBLOCK), a = open(node, O_RDWR | O_NONBLOCK);
	if (a < 0 || b < 0) {
		perror(node);
		return 1;
	}
	struct v4l2_requestbuffers rb = { .count = 4, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	if (ioctl(b, VIDIOC_REQBUFS, &rb) < 0) {
		perror("REQBUFS on B");
		return 1;
	}
	for (unsigned i = 0; i < rb.count; i++) {
		struct v4l2_buffer qb = { .index = i, .type = type, .memory = V4L2_MEMORY_MMAP };
		ioctl(b, VIDIOC_QBUF, &qb);
	}
	if (ioctl(b, VIDIOC_STREAMON, &type) < 0) {
		perror("STREAMON on B");
		return 1;
	}
	unsigned long channels = 0, refused = 0, closed = 0, answers = 0, frames_b = 0;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int verdict = 0;
	do {
		bool ours;
		int ring_fd, bell_fd;
		int s = uvcuse_open_channel((uvcuse_ioctl_fn)ioctl, a, &ours, &ring_fd, &bell_fd);
		if (bell_fd >= 0)
			close(bell_fd);
		struct uvcuse_ring *ring = NULL;
		if (ring_fd >= 0) {
			ring = mmap(NULL, sizeof(*ring), PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, 0);
			close(ring_fd);
			if (ring == MAP_FAILED)
				ring = NULL;
		}
		if (s < 0) {
			refused++;
			usleep(1000);
		} else {
			channels++;
			int steps = 1 + (int)(lrand48() % 40);
			for (int k = 0; k < steps; k++) {
				struct uvcuse_chan_msg m;
				memset(&m, 0, sizeof(m));
				m.magic = UVCUSE_MAGIC;
				m.op = (uint32_t)(1 + lrand48() % 3);
				m.seq = (uint32_t)lrand48();
				m.buf.index = (uint32_t)(lrand48() % 40);
				m.buf.type = lrand48() % 4 ? (uint32_t)type : (uint32_t)lrand48();
				m.buf.memory = lrand48() % 4 ? V4L2_MEMORY_MMAP : (uint32_t)(lrand48() % 5);
				size_t len = sizeof(m);
				long what = lrand48() % 10;
				if (ring && lrand48() % 4 == 0) {
					/* scribbles on the ring: a 'taken' of any generation
					 * and count, and garbage entries */
					ring->taken = ((uint64_t)lrand48() << 32) | (uint64_t)lrand48();
					if (lrand48() % 2)
						ring->taken &= 0xffffffff00000003ull;
					memset(&ring->entry[lrand48() % UVCUSE_RING_ENTRIES], 0xa5,
					       sizeof(ring->entry[0]));
					/* posted QBUFs: any count, garbage posts (B's
					 * buffer indices among them), any sleepers */
					if (lrand48() % 2)
						ring->posted = (uint32_t)lrand48();
					else
						ring->posted += (uint32_t)(lrand48() % 4);
					ring->post[lrand48() % UVCUSE_RING_ENTRIES] =
						(struct uvcuse_ring_post){ .index = (uint32_t)(lrand48() % 40),
									   .flags = (uint32_t)lrand48() };
					ring->sleepers = (uint32_t)lrand48();
				}
				if (what == 0) { /* garbage */
					len = (size_t)(lrand48() % (long)(sizeof(m) + 64));
					uint8_t junk[sizeof(m) + 64];
					for (size_t j = 0; j < len; j++)
						junk[j] = (uint8_t)lrand48();
					send(s, junk, len, MSG_NOSIGNAL);
				} else if (what == 1) { /* a second request before the answer */
					send(s, &m, len, MSG_NOSIGNAL);
					send(s, &m, len, MSG_NOSIGNAL);
				} else {
					send(s, &m, len, MSG_NOSIGNAL);
				}
				/* answers: none may be a buffer of B's queue */
				struct pollfd p = { .fd = s, .events = POLLIN };
				if (m.op == UVCUSE_CHAN_CANCEL && what > 1)
					continue; /* no answer of its own */
				int r = poll(&p, 1, 10000);
				if (r == 0 && what > 1) {
					printf("channel: no answer in 10 s (op %u)\n", m.op);
					verdict = 1;
					break;
				}
				struct uvcuse_chan_msg ans;
				ssize_t n = recv(s, &ans, sizeof(ans), MSG_DONTWAIT);
				if (n == 0 || (n < 0 && errno != EAGAIN)) {
					closed++;
					break;
				}
				if (n == (ssize_t)sizeof(ans)) {
					answers++;
					if (ans.result == 0 && ans.op != UVCUSE_CHAN_CANCEL) {
						printf("channel: file A was answered a buffer (op %u index %u) "
						       "of the queue file B owns\n", ans.op, ans.buf.index);
						verdict = 1;
					}
				}
			}
			close(s);
			if (ring)
				munmap(ring, sizeof(*ring));
		}
		/* B streams on */
		struct v4l2_buffer db = { .type = type, .memory = V4L2_MEMORY_MMAP };
		if (ioctl(b, VIDIOC_DQBUF, &db) == 0) {
			frames_b++;
			ioctl(b, VIDIOC_QBUF, &db);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (!verdict &&
		 (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	printf("channel: %lu channels opened (%lu refused), %lu answers, %lu closed by the daemon, "
	       "file B got %lu frames meanwhile\n", channels, refused, answers, closed, frames_b);
	if (!frames_b) {
		printf("channel: file B's stream stopped\n");
		verdict = 1;
	}
	ioctl(b, VIDIOC_STREAMOFF, &type);
	close(a);
	close(b);
	return verdict;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: uvcuse-appfault badptr NODE         every ioctl with a bad pointer\n"
		"       uvcuse-appfault badsize NODE        wrong sizes and unknown ioctls\n"
		"       uvcuse-appfault random NODE SECONDS SEED  random ioctls and bytes\n"
		"       uvcuse-appfault openclose NODE N    N open/QUERYCAP/close cycles\n"
		"       uvcuse-appfault manyfiles NODE FILES STREAMERS FRAMES\n"
		"       uvcuse-appfault ioctls NODE         G_EXT_CTRLS+QUERYCAP until killed\n"
		"       uvcuse-appfault flood SOCKET SECONDS  hold connections to a socket\n"
		"       uvcuse-appfault channel NODE SECONDS SEED  a hostile fast-path client\n");
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "badptr") == 0)
		return cmd_badptr(argv[2]);
	if (argc == 3 && strcmp(argv[1], "badsize") == 0)
		return cmd_badsize(argv[2]);
	if (argc == 5 && strcmp(argv[1], "random") == 0)
		return cmd_random(argv[2], atof(argv[3]), strtoull(argv[4], NULL, 0));
	if (argc == 4 && strcmp(argv[1], "openclose") == 0)
		return cmd_openclose(argv[2], atol(argv[3]));
	if (argc == 6 && strcmp(argv[1], "manyfiles") == 0)
		return cmd_manyfiles(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
	if (argc == 3 && strcmp(argv[1], "ioctls") == 0)
		return cmd_ioctls(argv[2]);
	if (argc == 4 && strcmp(argv[1], "flood") == 0)
		return cmd_flood(argv[2], atof(argv[3]));
	if (argc == 5 && strcmp(argv[1], "channel") == 0)
		return cmd_channel(argv[2], atof(argv[3]), strtoull(argv[4], NULL, 0));
	usage(argc == 2 && strcmp(argv[1], "--help") == 0 ? stdout : stderr);
	return 2;
}
