/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/device/ against fakes of the camera and of the CUSE session
 * (device_fakes.h): what the device decides between the apps' requests,
 * the camera's answers and its frames. The node, the queue, the
 * controls, the buffer socket, the settings store and the converter are
 * the real ones. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/usb/video.h>
#include <linux/videodev2.h>

#include "core/loop.h"
#include "device/device.h"
#include "device/internal.h"
#include "device_fakes.h"
#include "unit_run.h"

#define PID_A 900001 /* no such processes: each is its own thread group */
#define PID_B 900002

static struct loop *loop;
static struct device *dev;
static char state_dir[64];
static struct device_limits limits; /* zero: the defaults */
static bool camera_clock;           /* config camera-clock */
static bool drop_errored;           /* config errored-frames = drop */

static struct device_config config(unsigned linger)
{
	return (struct device_config){
		.name = "video99",
		.kmsg_fd = -1,
		.convert = true,
		.convert_threads = 1,
		.linger = linger,
		.settings = { .dir = state_dir },
		.limits = limits,
		.camera_clock = camera_clock,
		.drop_errored = drop_errored,
	};
}

static void start(unsigned linger)
{
	ck_assert_int_eq(loop_new(&loop), 0);
	fake_usb_setup("default");
	memset(&fake_cuse, 0, sizeof(fake_cuse));
	snprintf(state_dir, sizeof(state_dir), "/tmp/uvcuse-device-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(state_dir));
	struct device_config cfg = config(linger);
	ck_assert_int_eq(device_new(loop, NULL, &cfg, &dev), 0);
}

static void setup(void)
{
	start(30);
}

static void setup_exit_on_unplug(void)
{
	start(0);
}

static void setup_limited(void)
{
	limits = (struct device_limits){ .opens_per_process = 2, .opens_per_user = 3,
					 .buffer_mib_per_user = 16 };
	start(30);
	limits = (struct device_limits){ 0 };
}

static void setup_camera_clock(void)
{
	camera_clock = true;
	start(30);
	camera_clock = false;
}

static void setup_drop_errored(void)
{
	drop_errored = true;
	start(30);
	drop_errored = false;
}

static void remove_dir(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	char file[512];
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
			unlink(file);
		}
	closedir(d);
	rmdir(path);
}

static void teardown(void)
{
	device_free(dev);
	dev = NULL;
	fake_usb_teardown();
	loop_free(loop);
	remove_dir(state_dir);
}

/* --- helpers -------------------------------------------------------------- */

/* An ioctl answered however long the camera takes: its requests are
 * answered in order. Returns the result; arg holds the answer. */
static int xioctl(struct cuse_file *f, unsigned int cmd, void *arg)
{
	struct cuse_req *req = fake_cuse_ioctl(f, cmd, arg, NULL, 0);
	while (!req->answered && fake_usb_answer(0))
		;
	ck_assert_msg(req->answered, "ioctl %08x left unanswered", cmd);
	if (arg)
		memcpy(arg, req->arg, _IOC_SIZE(cmd));
	int res = req->result;
	free(req);
	return res;
}

static struct cuse_file *open_file(pid_t pid, int flags)
{
	int err = 0;
	struct cuse_file *f = fake_cuse_open(pid, flags, &err);
	ck_assert_msg(f, "open: %s", strerror(err));
	return f;
}

static struct v4l2_format get_fmt(struct cuse_file *f)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	ck_assert_int_eq(xioctl(f, VIDIOC_G_FMT, &fmt), 0);
	return fmt;
}

/* REQBUFS of n MMAP buffers, each queued, STREAMON, the commit answered. */
static void stream_mmap(struct cuse_file *f, unsigned n)
{
	struct v4l2_requestbuffers rb = { .count = n, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(xioctl(f, VIDIOC_REQBUFS, &rb), 0);
	ck_assert_uint_eq(rb.count, n);
	for (unsigned i = 0; i < n; i++) {
		struct v4l2_buffer b = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					 .memory = V4L2_MEMORY_MMAP };
		ck_assert_int_eq(xioctl(f, VIDIOC_QBUF, &b), 0);
	}
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ck_assert_int_eq(xioctl(f, VIDIOC_STREAMON, &type), 0);
}

static struct cuse_req *dqbuf(struct cuse_file *f)
{
	struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP };
	return fake_cuse_ioctl(f, VIDIOC_DQBUF, &b, NULL, 0);
}

static const struct v4l2_buffer *buf_of(const struct cuse_req *req)
{
	return (const struct v4l2_buffer *)req->arg;
}

/* A control request that waits for the camera (not yet answered). */
static struct cuse_req *g_ctrl(struct cuse_file *f, uint32_t id)
{
	struct v4l2_control c = { .id = id };
	return fake_cuse_ioctl(f, VIDIOC_G_CTRL, &c, NULL, 0);
}

static struct device_status status(void)
{
	struct device_status st;
	device_get_status(dev, &st);
	return st;
}

/* Runs the loop until cond holds (the converter's threads answer through
 * it), at most 5 s. */
#define LOOP_UNTIL(cond)                                                      \
	do {                                                                  \
		int status_;                                                  \
		for (int i_ = 0; i_ < 500 && !(cond); i_++)                   \
			loop_run_once(loop, 10, &status_);                    \
		ck_assert_msg((cond), "still not: " #cond);                   \
	} while (0)

/* --- lifetime ---------------------------------------------------------- */

START_TEST(new_registers_node_and_reads_camera)
{
	ck_assert_str_eq(fake_cuse.devname, "video99");
	ck_assert_ptr_nonnull(fake_cuse.ops);
	ck_assert(fake_usb.status_running);
	ck_assert_ptr_nonnull(fake_usb.left);
	ck_assert_uint_gt(fake_usb.sync_requests, 0); /* GET_INFO of each control */
	ck_assert_uint_eq(fake_usb.n_pending, 0);     /* start-up waited for its requests */
}
END_TEST

START_TEST(new_fails_without_camera)
{
	device_free(dev);
	dev = NULL;
	memset(&fake_cuse, 0, sizeof(fake_cuse));
	fake_usb.open_err = -ENODEV;
	struct device_config cfg = config(30);
	ck_assert_int_eq(device_new(loop, NULL, &cfg, &dev), -ENODEV);
	ck_assert_ptr_null(dev);
	ck_assert_ptr_null(fake_cuse.ops);
}
END_TEST

START_TEST(new_fails_without_cuse)
{
	device_free(dev);
	dev = NULL;
	memset(&fake_cuse, 0, sizeof(fake_cuse));
	fake_cuse.new_err = -ENOENT;
	struct device_config cfg = config(30);
	ck_assert_int_eq(device_new(loop, NULL, &cfg, &dev), -ENOENT);
	ck_assert_ptr_null(dev);
}
END_TEST

START_TEST(free_removes_node)
{
	device_free(dev);
	dev = NULL;
	ck_assert(fake_cuse.freed);
	ck_assert(!fake_usb.status_running);
}
END_TEST

/* --- requests ---------------------------------------------------------- */

START_TEST(open_and_release_counted)
{
	struct cuse_file *a = open_file(PID_A, O_RDWR);
	struct cuse_file *b = open_file(PID_B, O_RDWR);
	ck_assert_uint_eq(status().clients, 2);
	fake_cuse_release(a);
	ck_assert_uint_eq(status().clients, 1);
	fake_cuse_release(b);
	ck_assert_uint_eq(status().clients, 0);
}
END_TEST

START_TEST(querycap_answered_at_once)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	struct v4l2_capability cap;
	struct cuse_req *req = fake_cuse_ioctl(f, VIDIOC_QUERYCAP, NULL, NULL, 0);
	ck_assert(req->answered);
	ck_assert(!req->parked);
	ck_assert_int_eq(req->result, 0);
	memcpy(&cap, req->arg, sizeof(cap));
	ck_assert_str_eq((const char *)cap.card, "Fake Camera");
	ck_assert_str_eq((const char *)cap.driver, "uvcuse");
	ck_assert_uint_eq(fake_usb.async_requests, 0);
	free(req);
	fake_cuse_release(f);
}
END_TEST

START_TEST(status_snapshot)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	struct device_status st = status();
	struct v4l2_format fmt = get_fmt(f);
	ck_assert_str_eq(st.node, "video99");
	ck_assert_uint_eq(st.vid, 0x1d6b);
	ck_assert_str_eq(st.serial, "SN42");
	ck_assert_uint_eq(st.fourcc, fmt.fmt.pix.pixelformat);
	ck_assert_uint_eq(st.width, fmt.fmt.pix.width);
	ck_assert(!st.streaming);
	fake_cuse_release(f);
}
END_TEST

START_TEST(unknown_ioctl_enotty)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	struct cuse_req *req = fake_cuse_ioctl(f, _IO('V', 200), NULL, NULL, 0);
	ck_assert(req->answered);
	ck_assert_int_eq(req->result, -ENOTTY);
	free(req);
	fake_cuse_release(f);
}
END_TEST

/* --- camera calls -------------------------------------------------------- */

START_TEST(control_waits_for_camera)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	struct cuse_req *req = g_ctrl(f, V4L2_CID_BRIGHTNESS);
	ck_assert(!req->answered);
	ck_assert(req->parked);
	ck_assert_uint_eq(fake_usb.n_pending, 1);
	ck_assert_uint_eq(fake_usb.pending[0]->query, UVC_GET_CUR);
	fake_usb_answer_all();
	ck_assert(req->answered);
	ck_assert_int_eq(req->result, 0);
	free(req);
	fake_cuse_release(f);
}
END_TEST

START_TEST(calls_wait_in_line)
{
	struct cuse_file *a = open_file(PID_A, O_RDWR);
	struct cuse_file *b = open_file(PID_B, O_RDWR);
	struct cuse_req *first = g_ctrl(a, V4L2_CID_BRIGHTNESS);
	struct cuse_req *second = g_ctrl(b, V4L2_CID_CONTRAST);
	ck_assert_uint_eq(fake_usb.n_pending, 1); /* one request on the wire */
	ck_assert(second->parked && !second->answered);
	while (!first->answered)
		ck_assert(fake_usb_answer(0));
	ck_assert(!second->answered);
	ck_assert_uint_eq(fake_usb.n_pending, 1); /* the second's turn */
	fake_usb_answer_all();
	ck_assert(second->answered);
	ck_assert_int_eq(second->result, 0);
	free(first);
	free(second);
	fake_cuse_release(a);
	fake_cuse_release(b);
}
END_TEST

START_TEST(call_in_line_interrupted)
{
	struct cuse_file *a = open_file(PID_A, O_RDWR);
	struct cuse_file *b = open_file(PID_B, O_RDWR);
	struct cuse_req *first = g_ctrl(a, V4L2_CID_BRIGHTNESS);
	struct cuse_req *second = g_ctrl(b, V4L2_CID_CONTRAST);
	fake_cuse_interrupt(b, second);
	ck_assert(second->answered);
	ck_assert_int_eq(second->result, -EINTR);
	unsigned before = fake_usb.async_requests;
	fake_usb_answer_all();
	ck_assert(first->answered);
	ck_assert_int_eq(first->result, 0);
	/* the interrupted call left the line: no request of its went out */
	ck_assert_uint_le(fake_usb.async_requests - before, 1);
	free(first);
	free(second);
	fake_cuse_release(a);
	fake_cuse_release(b);
}
END_TEST

START_TEST(running_call_interrupted)
{
	struct cuse_file *a = open_file(PID_A, O_RDWR);
	struct cuse_file *b = open_file(PID_B, O_RDWR);
	struct cuse_req *first = g_ctrl(a, V4L2_CID_BRIGHTNESS);
	struct cuse_req *second = g_ctrl(b, V4L2_CID_CONTRAST);
	fake_cuse_interrupt(a, first);
	ck_assert_int_eq(first->result, -EINTR);
	/* the camera has its request: the call goes on with nobody to answer
	 * (fake_cuse asserts no request is answered twice), then the next */
	fake_usb_answer_all();
	ck_assert(second->answered);
	ck_assert_int_eq(second->result, 0);
	free(first);
	free(second);
	fake_cuse_release(a);
	fake_cuse_release(b);
}
END_TEST

START_TEST(release_while_call_runs)
{
	struct cuse_file *a = open_file(PID_A, O_RDWR);
	struct cuse_req *req = g_ctrl(a, V4L2_CID_BRIGHTNESS);
	fake_cuse_interrupt(a, req); /* CUSE answers every request before release */
	fake_cuse_release(a);
	ck_assert_uint_eq(status().clients, 1); /* kept until its call ends */
	fake_usb_answer_all();
	ck_assert_uint_eq(status().clients, 0);
	free(req);
}
END_TEST

START_TEST(camera_error_answers_the_call)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	struct cuse_req *req = g_ctrl(f, V4L2_CID_BRIGHTNESS);
	ck_assert(fake_usb_answer(-EPIPE));
	fake_usb_answer_all();
	ck_assert(req->answered);
	ck_assert_int_lt(req->result, 0);
	free(req);
	/* the next call is not held back */
	struct v4l2_control c = { .id = V4L2_CID_BRIGHTNESS };
	ck_assert_int_eq(xioctl(f, VIDIOC_G_CTRL, &c), 0);
	fake_cuse_release(f);
}
END_TEST

START_TEST(set_control_remembered)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	struct v4l2_queryctrl q = { .id = V4L2_CID_BRIGHTNESS };
	ck_assert_int_eq(xioctl(f, VIDIOC_QUERYCTRL, &q), 0);
	int32_t want = q.default_value + q.step == q.maximum + q.step ? q.minimum :
								       q.default_value + q.step;
	struct v4l2_control c = { .id = V4L2_CID_BRIGHTNESS, .value = want };
	ck_assert_int_eq(xioctl(f, VIDIOC_S_CTRL, &c), 0);
	c.value = 0;
	ck_assert_int_eq(xioctl(f, VIDIOC_G_CTRL, &c), 0);
	ck_assert_int_eq(c.value, want);
	fake_cuse_release(f);
	device_free(dev); /* a change not yet saved is saved now */
	dev = NULL;
	char path[512] = "", text[4096] = "", line[80];
	DIR *d = opendir(state_dir);
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			snprintf(path, sizeof(path), "%s/%s", state_dir, e->d_name);
	closedir(d);
	FILE *fp = fopen(path, "r");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_gt(fread(text, 1, sizeof(text) - 1, fp), 0);
	fclose(fp);
	snprintf(line, sizeof(line), "0x%08x brightness %d", V4L2_CID_BRIGHTNESS, want);
	ck_assert_ptr_nonnull(strstr(text, line));
}
END_TEST

START_TEST(status_event_becomes_control_event)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	struct v4l2_event_subscription sub = { .type = V4L2_EVENT_CTRL, .id = V4L2_CID_BRIGHTNESS,
						.flags = V4L2_EVENT_SUB_FL_SEND_INITIAL };
	ck_assert_int_eq(xioctl(f, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	struct v4l2_event ev;
	ck_assert_int_eq(xioctl(f, VIDIOC_DQEVENT, &ev), 0); /* the initial value */
	/* the processing unit's brightness changed, as the camera reports it */
	const struct uvc_entity *pu = NULL;
	for (unsigned i = 0; i < fake_usb.model->n_entities; i++)
		if (fake_usb.model->entities[i].kind == UVC_ENTITY_PROCESSING_UNIT)
			pu = &fake_usb.model->entities[i];
	ck_assert_ptr_nonnull(pu);
	uint8_t packet[] = { 0x01, pu->id, 0x00, UVC_PU_BRIGHTNESS_CONTROL, 0x00, 42, 0 };
	fake_usb.status_packet(fake_usb.status_data, packet, sizeof(packet));
	fake_usb_answer_all();
	ck_assert(fake_cuse_poll(f, POLLPRI) & POLLPRI);
	ck_assert_int_eq(xioctl(f, VIDIOC_DQEVENT, &ev), 0);
	ck_assert_uint_eq(ev.type, V4L2_EVENT_CTRL);
	ck_assert_uint_eq(ev.id, V4L2_CID_BRIGHTNESS);
	ck_assert_int_eq(ev.u.ctrl.value, 42);
	fake_cuse_release(f);
}
END_TEST

START_TEST(log_status_answers)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	struct cuse_req *req = fake_cuse_ioctl(f, VIDIOC_LOG_STATUS, NULL, NULL, 0);
	unsigned answered = fake_usb_answer_all(); /* every control's value */
	ck_assert(req->answered);
	ck_assert_int_eq(req->result, 0);
	ck_assert_uint_gt(answered, 0);
	ck_assert_uint_eq(dev->log.len, 0); /* written once it answered */
	free(req);
	fake_cuse_release(f);
}
END_TEST

/* --- the stream ---------------------------------------------------------- */

START_TEST(streamon_waits_for_commit)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	struct v4l2_requestbuffers rb = { .count = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(xioctl(f, VIDIOC_REQBUFS, &rb), 0);
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct cuse_req *req = fake_cuse_ioctl(f, VIDIOC_STREAMON, &type, NULL, 0);
	ck_assert(!req->answered);
	ck_assert_uint_eq(fake_usb.n_pending, 1);
	ck_assert(fake_usb.pending[0]->streaming);
	ck_assert_uint_eq(fake_usb.pending[0]->selector, UVC_VS_COMMIT_CONTROL);
	ck_assert(!fake_usb.streaming);
	fake_usb_answer_all();
	ck_assert_int_eq(req->result, 0);
	ck_assert(fake_usb.streaming);
	ck_assert(status().streaming);
	free(req);
	fake_cuse_release(f);
	ck_assert(!fake_usb.streaming);
}
END_TEST

START_TEST(streamon_commit_refused)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	struct v4l2_requestbuffers rb = { .count = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(xioctl(f, VIDIOC_REQBUFS, &rb), 0);
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct cuse_req *req = fake_cuse_ioctl(f, VIDIOC_STREAMON, &type, NULL, 0);
	ck_assert(fake_usb_answer(-EPIPE));
	ck_assert(req->answered);
	ck_assert_int_eq(req->result, -EIO); /* as uvcvideo for a failed commit */
	ck_assert(!fake_usb.streaming);
	free(req);
	fake_cuse_release(f);
}
END_TEST

START_TEST(parked_dqbuf_answered_by_frame)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	stream_mmap(f, 3);
	struct cuse_req *req = dqbuf(f);
	ck_assert(req->parked && !req->answered);
	fake_usb_frame(0x55, false);
	ck_assert(req->answered);
	ck_assert_int_eq(req->result, 0);
	struct v4l2_format fmt = get_fmt(f);
	ck_assert_uint_eq(buf_of(req)->bytesused, fmt.fmt.pix.sizeimage);
	ck_assert_uint_eq(buf_of(req)->sequence, 0);
	ck_assert(!(buf_of(req)->flags & (V4L2_BUF_FLAG_QUEUED | V4L2_BUF_FLAG_ERROR)));
	ck_assert_uint_eq(status().frames, 1);
	free(req);
	fake_cuse_release(f);
}
END_TEST

START_TEST(nonblocking_dqbuf_eagain)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR | O_NONBLOCK);
	stream_mmap(f, 2);
	struct cuse_req *req = dqbuf(f);
	ck_assert(req->answered);
	ck_assert_int_eq(req->result, -EAGAIN);
	free(req);
	fake_cuse_release(f);
}
END_TEST

START_TEST(parked_dqbuf_interrupted)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	stream_mmap(f, 2);
	struct cuse_req *req = dqbuf(f);
	fake_cuse_interrupt(f, req);
	ck_assert_int_eq(req->result, -EINTR);
	fake_usb_frame(1, false); /* nobody waits: no second answer */
	free(req);
	fake_cuse_release(f);
}
END_TEST

START_TEST(streamoff_wakes_parked_dqbuf)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	stream_mmap(f, 2);
	struct cuse_req *req = dqbuf(f);
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ck_assert_int_eq(xioctl(f, VIDIOC_STREAMOFF, &type), 0);
	ck_assert(req->answered); /* vb2 wakes its waiters: not streaming */
	ck_assert_int_lt(req->result, 0);
	ck_assert(!fake_usb.streaming);
	free(req);
	fake_cuse_release(f);
}
END_TEST

/* By default a frame the camera marked bad reaches the app flagged, with
 * its bytes, as uvcvideo 6.14+ delivers it; the good one after it is not
 * flagged. */
START_TEST(errored_frame_delivered_flagged)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	stream_mmap(f, 2);
	struct cuse_req *req = dqbuf(f);
	fake_usb_frame(1, true);
	ck_assert(req->answered);
	const struct v4l2_buffer *b = buf_of(req);
	ck_assert_uint_eq(b->sequence, 0);
	ck_assert(b->flags & V4L2_BUF_FLAG_ERROR);
	ck_assert_uint_gt(b->bytesused, 0);
	struct v4l2_buffer again = { .index = b->index, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				     .memory = V4L2_MEMORY_MMAP };
	free(req);
	ck_assert_int_eq(xioctl(f, VIDIOC_QBUF, &again), 0);
	req = dqbuf(f);
	fake_usb_frame(2, false);
	ck_assert(req->answered);
	ck_assert_uint_eq(buf_of(req)->sequence, 1);
	ck_assert(!(buf_of(req)->flags & V4L2_BUF_FLAG_ERROR));
	ck_assert_uint_eq(status().dropped, 0);
	free(req);
	fake_cuse_release(f);
}
END_TEST

/* errored-frames = drop: as uvcvideo 6.1, the frame is dropped and its
 * sequence number skipped. */
START_TEST(errored_frame_dropped_sequence_skipped)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	stream_mmap(f, 2);
	struct cuse_req *req = dqbuf(f);
	fake_usb_frame(1, true);
	ck_assert(!req->answered);
	fake_usb_frame(2, false);
	ck_assert(req->answered);
	ck_assert_uint_eq(buf_of(req)->sequence, 1);
	ck_assert_uint_eq(status().dropped, 1);
	free(req);
	fake_cuse_release(f);
}
END_TEST

/* A frame is stamped when its first payload came, as uvcvideo stamps it
 * (V4L2_BUF_FLAG_TSTAMP_SRC_SOE), not when its last did. */
START_TEST(frame_stamped_at_its_start)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	stream_mmap(f, 2);
	struct cuse_req *req = dqbuf(f);
	fake_usb.now_ns = 5000000000ull;
	fake_usb_frame_part(7, 1000);
	fake_usb.now_ns = 5020000000ull;
	fake_usb_frame(7, false);
	ck_assert(req->answered);
	ck_assert_int_eq(buf_of(req)->timestamp.tv_sec, 5);
	ck_assert_int_eq(buf_of(req)->timestamp.tv_usec, 0);
	ck_assert_uint_eq(buf_of(req)->flags & V4L2_BUF_FLAG_TSTAMP_SRC_MASK,
			  V4L2_BUF_FLAG_TSTAMP_SRC_SOE);
	free(req);
	fake_cuse_release(f);
}
END_TEST

/* With camera-clock, a frame is stamped with its exposure as the camera's
 * clock tells it (its PTS, through its SCR samples), once the clock has a
 * window of samples; before that, at its first payload. A sample is a
 * transfer's: the one a frame ends in counts from the next frame on (here a
 * frame is a transfer, so the eighth sample serves the ninth frame). */
static void stream_clocked_frames(uint64_t exposure_ago_ns, bool expect_exposure)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	fake_usb.clock_hz = 48000000u;
	fake_usb.exposure_ago_ns = exposure_ago_ns;
	stream_mmap(f, 2);
	uint64_t last = 0;
	for (unsigned k = 0; k < 12; k++) {
		uint64_t now = 10000000000ull + k * 33333333ull;
		struct cuse_req *req = dqbuf(f);
		fake_usb.now_ns = now;
		fake_usb_frame((uint8_t)k, false);
		ck_assert(req->answered);
		const struct v4l2_buffer *b = buf_of(req);
		uint64_t got = (uint64_t)b->timestamp.tv_sec * 1000000000u +
			       (uint64_t)b->timestamp.tv_usec * 1000u;
		/* from the camera's clock: the stamps go over to it from the
		 * first-payload times a quarter interval a frame (uvc/stamper.h),
		 * and are the exposures from frame 4 on */
		uint64_t want = expect_exposure && k >= 4 ? now - fake_usb.exposure_ago_ns : now;
		if (expect_exposure && k > 0 && k < 4)
			ck_assert_msg(got + 1000 >= now - fake_usb.exposure_ago_ns && got <= now + 1000 &&
					      got - last >= 33333333ull * 3 / 4,
				      "frame %u: %llu, not on its way to the exposure", k,
				      (unsigned long long)got);
		else
			ck_assert_msg(got + 1000 >= want && got <= want + 1000,
				      "frame %u: %llu, not %llu", k, (unsigned long long)got,
				      (unsigned long long)want);
		last = got;
		struct v4l2_buffer again = { .index = b->index, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					     .memory = V4L2_MEMORY_MMAP };
		free(req);
		ck_assert_int_eq(xioctl(f, VIDIOC_QBUF, &again), 0);
	}
	fake_cuse_release(f);
}

START_TEST(frames_stamped_from_the_camera_clock)
{
	stream_clocked_frames(10000000ull, true);
}
END_TEST

/* A PTS that puts the exposure 3 s before the frame's first data is no
 * clock to trust: the frame is stamped at its first payload. */
START_TEST(implausible_camera_clock_not_used)
{
	stream_clocked_frames(3000000000ull, false);
}
END_TEST

START_TEST(camera_clock_unused_unless_configured)
{
	stream_clocked_frames(10000000ull, false);
}
END_TEST

START_TEST(poll_in_after_frame)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	stream_mmap(f, 2);
	ck_assert_uint_eq(fake_cuse_poll(f, POLLIN) & POLLIN, 0);
	unsigned notified = f->poll_notified;
	fake_usb_frame(3, false);
	ck_assert_uint_gt(f->poll_notified, notified);
	ck_assert(fake_cuse_poll(f, POLLIN) & POLLIN);
	fake_cuse_release(f);
}
END_TEST

START_TEST(read_waits_for_frame)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	struct v4l2_format fmt = get_fmt(f);
	struct cuse_req *req = fake_cuse_read(f, 4096, 0);
	ck_assert(!req->answered);
	fake_usb_answer_all(); /* the commit the first read() started */
	ck_assert(fake_usb.streaming);
	fake_usb_frame(0x77, false);
	ck_assert(req->answered);
	ck_assert_int_eq(req->result, 4096);
	ck_assert_uint_eq(req->data[0], 0x77);
	ck_assert_uint_gt(fmt.fmt.pix.sizeimage, 4096);
	free(req);
	fake_cuse_release(f);
}
END_TEST

START_TEST(two_processes_share_the_stream)
{
	struct cuse_file *a = open_file(PID_A, O_RDWR);
	struct cuse_file *b = open_file(PID_B, O_RDWR);
	stream_mmap(a, 2);
	stream_mmap(b, 2);
	ck_assert_uint_eq(fake_usb.stream_starts, 1); /* one commit, one stream */
	ck_assert_uint_eq(status().streamers, 2);
	ck_assert_uint_eq(status().n_streams, 2);
	struct cuse_req *ra = dqbuf(a), *rb = dqbuf(b);
	fake_usb_frame(0x42, false);
	ck_assert(ra->answered && rb->answered);
	ck_assert_int_eq(ra->result, 0);
	ck_assert_int_eq(rb->result, 0);
	ck_assert_uint_eq(buf_of(ra)->bytesused, buf_of(rb)->bytesused);
	/* b came before the frame began: a's buffer, only given, got the
	 * fan-out buffer as its mirror; the frame was assembled into both, a
	 * took it in place and b a copy of the mirror (never one from a's own
	 * buffer, which a can write): two copies beside the assembly, one of
	 * them the mirror */
	ck_assert_uint_eq(dev->stats.frames_into_app, 1);
	ck_assert_uint_eq(dev->stats.bytes_copied_after, 2 * buf_of(rb)->bytesused);
	struct device_status st = status();
	ck_assert_uint_eq(st.streams[0].frames, 1); /* each process got the frame */
	ck_assert_uint_eq(st.streams[1].frames, 1);
	free(ra);
	free(rb);
	fake_cuse_release(a);
	ck_assert(fake_usb.streaming); /* b still streams */
	fake_cuse_release(b);
	ck_assert(!fake_usb.streaming);
}
END_TEST

/* The bytes of the buffer a DQBUF of file f answered. */
static const uint8_t *dequeued_bytes(struct cuse_file *f, const struct cuse_req *req)
{
	struct dev_file *df = f->data;
	return df->nf.proc->queue.buffers[buf_of(req)->index].mem;
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t value)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != value)
			return false;
	return true;
}

/* Issue 29, finding 4: a process that joins while a frame is written into
 * another process's own buffer (which that process maps writable) does
 * not get that frame: what it gets first is the next one, numbered 0. */
START_TEST(joiner_gets_no_frame_from_another_app_buffer)
{
	struct cuse_file *a = open_file(PID_A, O_RDWR);
	struct cuse_file *b = open_file(PID_B, O_RDWR);
	stream_mmap(a, 2);
	struct cuse_req *ra = dqbuf(a);
	fake_usb_frame_part(0x11, 4000);
	ck_assert_int_eq(dev->frames.given.kind, GIVEN_APP);
	stream_mmap(b, 2);
	struct cuse_req *rb = dqbuf(b);
	memset(dev->frames.given.mem, 0x66, 4000); /* app A scribbles meanwhile */
	fake_usb_frame(0x11, false);
	ck_assert(ra->answered);
	ck_assert(!rb->answered);
	fake_usb_frame(0x22, false);
	ck_assert(rb->answered);
	ck_assert_int_eq(rb->result, 0);
	ck_assert_uint_eq(buf_of(rb)->sequence, 0);
	ck_assert(all_bytes(dequeued_bytes(b, rb), buf_of(rb)->bytesused, 0x22));
	free(ra);
	free(rb);
	fake_cuse_release(a);
	fake_cuse_release(b);
}
END_TEST

/* Issue 29, finding 4: the process in whose buffer a frame is written
 * leaves mid-frame: the part written there (which it could change) is not
 * handed to a process that joined meanwhile; that one's first frame is
 * the next, whole and from the camera. */
START_TEST(leaver_partial_frame_not_handed_on)
{
	struct cuse_file *a = open_file(PID_A, O_RDWR);
	struct cuse_file *b = open_file(PID_B, O_RDWR);
	stream_mmap(a, 2);
	fake_usb_frame_part(0x11, 4000);
	stream_mmap(b, 2);
	struct cuse_req *rb = dqbuf(b);
	memset(dev->frames.given.mem, 0x66, 4000);
	fake_cuse_release(a); /* leaves mid-frame */
	fake_usb_frame(0x11, false);
	ck_assert(!rb->answered);
	fake_usb_frame(0x33, false);
	ck_assert(rb->answered);
	ck_assert_int_eq(rb->result, 0);
	ck_assert_uint_eq(buf_of(rb)->sequence, 0);
	ck_assert(all_bytes(dequeued_bytes(b, rb), buf_of(rb)->bytesused, 0x33));
	free(rb);
	fake_cuse_release(b);
}
END_TEST

/* Issue 29, finding 4: with several processes on the camera, the first
 * in line still has its frame assembled straight into its own buffer (no
 * copy after assembly), and the others' copies come from the mirror the
 * assembler wrote beside it: what that app writes on its own buffer
 * meanwhile reaches no one else. */
START_TEST(first_app_in_place_others_from_the_mirror)
{
	struct cuse_file *a = open_file(PID_A, O_RDWR);
	struct cuse_file *b = open_file(PID_B, O_RDWR);
	stream_mmap(a, 2);
	stream_mmap(b, 2);
	struct cuse_req *ra = dqbuf(a), *rb = dqbuf(b);
	fake_usb_frame_part(0x44, 4000);
	ck_assert_int_eq(dev->frames.given.kind, GIVEN_APP);
	ck_assert(dev->frames.given.mirrored);
	memset(dev->frames.given.mem, 0x66, 4000); /* app A scribbles meanwhile */
	fake_usb_frame(0x44, false);
	ck_assert(ra->answered && rb->answered);
	ck_assert_uint_eq(dev->stats.frames_into_app, 1);
	ck_assert_uint_eq(buf_of(rb)->sequence, 0);
	ck_assert(all_bytes(dequeued_bytes(b, rb), buf_of(rb)->bytesused, 0x44));
	ck_assert(!all_bytes(dequeued_bytes(a, ra), 4000, 0x44)); /* its own doing */
	free(ra);
	free(rb);
	fake_cuse_release(a);
	fake_cuse_release(b);
}
END_TEST

/* Issue 29, finding 4: the app whose buffer a mirrored frame is written
 * into leaves mid-frame: the frame goes on in the mirror, and the other
 * process gets it whole, from the camera, with no gap. */
START_TEST(mirrored_frame_outlives_its_app)
{
	struct cuse_file *a = open_file(PID_A, O_RDWR);
	struct cuse_file *b = open_file(PID_B, O_RDWR);
	stream_mmap(a, 2);
	stream_mmap(b, 2);
	struct cuse_req *rb = dqbuf(b);
	fake_usb_frame_part(0x55, 4000);
	ck_assert(dev->frames.given.kind == GIVEN_APP && dev->frames.given.mirrored);
	memset(dev->frames.given.mem, 0x66, 4000);
	fake_cuse_release(a); /* leaves mid-frame */
	ck_assert_int_eq(dev->frames.given.kind, GIVEN_FAN);
	fake_usb_frame(0x55, false);
	ck_assert(rb->answered);
	ck_assert_int_eq(rb->result, 0);
	ck_assert_uint_eq(buf_of(rb)->sequence, 0);
	ck_assert(all_bytes(dequeued_bytes(b, rb), buf_of(rb)->bytesused, 0x55));
	free(rb);
	fake_cuse_release(b);
}
END_TEST

START_TEST(other_mode_busy_while_streaming)
{
	struct cuse_file *a = open_file(PID_A, O_RDWR);
	struct cuse_file *b = open_file(PID_B, O_RDWR);
	stream_mmap(a, 2);
	struct v4l2_format fmt = get_fmt(b);
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_MJPEG; /* the camera has it, not running */
	ck_assert_int_eq(xioctl(b, VIDIOC_S_FMT, &fmt), -EBUSY);
	/* the running mode itself is fine */
	fmt = get_fmt(a);
	ck_assert_int_eq(xioctl(b, VIDIOC_S_FMT, &fmt), 0);
	fake_cuse_release(a);
	fake_cuse_release(b);
}
END_TEST

START_TEST(converted_stream)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	struct v4l2_format fmt = get_fmt(f);
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_RGB24;
	ck_assert_int_eq(xioctl(f, VIDIOC_S_FMT, &fmt), 0);
	ck_assert_uint_eq(fmt.fmt.pix.pixelformat, V4L2_PIX_FMT_RGB24);
	stream_mmap(f, 2);
	struct cuse_req *req = dqbuf(f);
	fake_usb_frame(0x80, false);
	LOOP_UNTIL(req->answered); /* converted on a worker, back through the loop */
	ck_assert_int_eq(req->result, 0);
	ck_assert_uint_eq(buf_of(req)->bytesused, fmt.fmt.pix.width * fmt.fmt.pix.height * 3);
	ck_assert_uint_eq(dev->stats.frames_converted, 1);
	free(req);
	fake_cuse_release(f);
}
END_TEST

/* --- unplug ------------------------------------------------------------ */

START_TEST(unplug_waits_and_replug_resumes)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	struct v4l2_event_subscription sub = { .type = V4L2_EVENT_SOURCE_CHANGE };
	ck_assert_int_eq(xioctl(f, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	stream_mmap(f, 2);
	struct cuse_req *req = dqbuf(f);
	fake_usb.gone = true;
	fake_usb.left(fake_usb.hotplug_data);
	ck_assert(status().away);
	ck_assert(!fake_usb.streaming);
	ck_assert(!req->answered); /* DQBUF waits for the camera */
	struct v4l2_event ev;
	ck_assert_int_eq(xioctl(f, VIDIOC_DQEVENT, &ev), 0);
	ck_assert_uint_eq(ev.type, V4L2_EVENT_SOURCE_CHANGE);
	fake_usb.arrived(fake_usb.hotplug_data);
	ck_assert(!status().away);
	fake_usb_answer_all(); /* the commit again */
	ck_assert(fake_usb.streaming);
	ck_assert_uint_eq(fake_usb.stream_starts, 2);
	fake_usb_frame(9, false);
	ck_assert(req->answered);
	ck_assert_int_eq(req->result, 0);
	free(req);
	fake_cuse_release(f);
}
END_TEST

START_TEST(unplug_other_camera_not_taken)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	fake_usb.gone = true;
	fake_usb.left(fake_usb.hotplug_data);
	fake_usb.reattach_result = -ENODEV; /* another device of the same model */
	fake_usb.arrived(fake_usb.hotplug_data);
	ck_assert(status().away);
	struct cuse_req *req = g_ctrl(f, V4L2_CID_BRIGHTNESS);
	fake_usb_answer_all();
	ck_assert(req->answered);
	ck_assert_int_eq(req->result, -ENODEV);
	free(req);
	fake_cuse_release(f);
}
END_TEST

START_TEST(exit_on_unplug_answers_enodev)
{
	struct cuse_file *f = open_file(PID_A, O_RDWR);
	stream_mmap(f, 2);
	struct cuse_req *req = dqbuf(f);
	fake_usb.gone = true;
	fake_usb.left(fake_usb.hotplug_data);
	ck_assert(req->answered);
	ck_assert_int_eq(req->result, -ENODEV);
	ck_assert(fake_cuse_poll(f, POLLIN) & POLLERR);
	int err = 0;
	ck_assert_ptr_null(fake_cuse_open(PID_B, O_RDWR, &err));
	ck_assert_int_eq(err, ENODEV);
	free(req);
	fake_cuse_release(f);
}
END_TEST

static struct cuse_file *open_as(pid_t pid, uid_t uid, int *err)
{
	*err = 0;
	return fake_cuse_open_as(pid, uid, O_RDWR, err);
}

/* Issue 29, finding 2: opens are bounded per process and per user
 * (max-opens-per-process 2, max-opens-per-user 3 here): EMFILE beyond,
 * and other processes and users still open. */
START_TEST(opens_limited_per_process_and_user)
{
	int err;
	struct cuse_file *a1 = open_as(100, 1000, &err), *a2 = open_as(100, 1000, &err);
	ck_assert_ptr_nonnull(a1);
	ck_assert_ptr_nonnull(a2);
	ck_assert_ptr_null(open_as(100, 1000, &err));
	ck_assert_int_eq(err, EMFILE);
	struct cuse_file *b = open_as(200, 1000, &err);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_null(open_as(300, 1000, &err)); /* the user's third is its last */
	ck_assert_int_eq(err, EMFILE);
	struct cuse_file *other = open_as(300, 1001, &err);
	ck_assert_ptr_nonnull(other);
	fake_cuse_release(a1);
	struct cuse_file *c = open_as(300, 1000, &err);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(status().clients, 4);
	fake_cuse_release(a2);
	fake_cuse_release(b);
	fake_cuse_release(c);
	fake_cuse_release(other);
}
END_TEST

static int reqbufs(struct cuse_file *f, unsigned count)
{
	struct v4l2_requestbuffers rb = { .count = count, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	return xioctl(f, VIDIOC_REQBUFS, &rb);
}

/* Issue 29, finding 2: one user's processes together hold at most
 * max-buffer-memory-per-user (16 MiB here) of buffers: REQBUFS beyond
 * fails with ENOMEM; another user is not charged for it. */
START_TEST(buffer_memory_limited_per_user)
{
	int err;
	struct cuse_file *f = open_as(100, 1000, &err), *g = open_as(200, 1000, &err);
	struct cuse_file *h = open_as(300, 1001, &err);
	ck_assert_ptr_nonnull(h);
	uint32_t size = get_fmt(f).fmt.pix.sizeimage;
	unsigned fit = (16u << 20) / size; /* buffers of this size in 16 MiB */
	ck_assert_uint_ge(fit, 4);
	ck_assert_int_eq(reqbufs(f, fit / 2), 0);
	ck_assert_int_eq(reqbufs(g, fit - fit / 2 + 1), -ENOMEM);
	ck_assert_int_eq(reqbufs(g, fit - fit / 2), 0);
	ck_assert_int_eq(reqbufs(h, fit), 0); /* another user's own share */
	ck_assert_int_eq(reqbufs(f, fit / 2 + 1), -ENOMEM); /* replacing its own: still over */
	ck_assert_int_eq(reqbufs(f, 0), 0);
	ck_assert_int_eq(reqbufs(g, fit), 0);
	/* what the queue may grant is charged, not what is asked: 256
	 * buffers (ffmpeg's request) are 32, within a limit they fit */
	ck_assert_int_eq(reqbufs(g, 0), 0);
	ck_assert_int_eq(reqbufs(h, 0), 0);
	dev->open.limits.buffer_mib_per_user = (unsigned)((32ull * size >> 20) + 1);
	ck_assert_uint_lt(32ull * size, (uint64_t)dev->open.limits.buffer_mib_per_user << 20);
	ck_assert_uint_gt(256ull * size, (uint64_t)dev->open.limits.buffer_mib_per_user << 20);
	ck_assert_int_eq(reqbufs(g, 256), 0);
	fake_cuse_release(f);
	fake_cuse_release(g);
	fake_cuse_release(h);
}
END_TEST

static Suite *device_suite(void)
{
	Suite *s = suite_create("device");
	TCase *t = tcase_create("lifetime");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, new_registers_node_and_reads_camera);
	tcase_add_test(t, new_fails_without_camera);
	tcase_add_test(t, new_fails_without_cuse);
	tcase_add_test(t, free_removes_node);
	suite_add_tcase(s, t);

	t = tcase_create("requests");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, open_and_release_counted);
	tcase_add_test(t, querycap_answered_at_once);
	tcase_add_test(t, status_snapshot);
	tcase_add_test(t, unknown_ioctl_enotty);
	suite_add_tcase(s, t);

	t = tcase_create("calls");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, control_waits_for_camera);
	tcase_add_test(t, calls_wait_in_line);
	tcase_add_test(t, call_in_line_interrupted);
	tcase_add_test(t, running_call_interrupted);
	tcase_add_test(t, release_while_call_runs);
	tcase_add_test(t, camera_error_answers_the_call);
	tcase_add_test(t, set_control_remembered);
	tcase_add_test(t, status_event_becomes_control_event);
	tcase_add_test(t, log_status_answers);
	suite_add_tcase(s, t);

	t = tcase_create("stream");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, streamon_waits_for_commit);
	tcase_add_test(t, streamon_commit_refused);
	tcase_add_test(t, parked_dqbuf_answered_by_frame);
	tcase_add_test(t, nonblocking_dqbuf_eagain);
	tcase_add_test(t, parked_dqbuf_interrupted);
	tcase_add_test(t, streamoff_wakes_parked_dqbuf);
	tcase_add_test(t, errored_frame_delivered_flagged);
	tcase_add_test(t, frame_stamped_at_its_start);
	tcase_add_test(t, camera_clock_unused_unless_configured);
	tcase_add_test(t, poll_in_after_frame);
	tcase_add_test(t, read_waits_for_frame);
	tcase_add_test(t, two_processes_share_the_stream);
	tcase_add_test(t, joiner_gets_no_frame_from_another_app_buffer);
	tcase_add_test(t, leaver_partial_frame_not_handed_on);
	tcase_add_test(t, first_app_in_place_others_from_the_mirror);
	tcase_add_test(t, mirrored_frame_outlives_its_app);
	tcase_add_test(t, other_mode_busy_while_streaming);
	tcase_add_test(t, converted_stream);
	suite_add_tcase(s, t);

	t = tcase_create("unplug");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, unplug_waits_and_replug_resumes);
	tcase_add_test(t, unplug_other_camera_not_taken);
	suite_add_tcase(s, t);

	t = tcase_create("camera-clock");
	tcase_add_checked_fixture(t, setup_camera_clock, teardown);
	tcase_add_test(t, frames_stamped_from_the_camera_clock);
	tcase_add_test(t, implausible_camera_clock_not_used);
	suite_add_tcase(s, t);

	t = tcase_create("errored-frames-drop");
	tcase_add_checked_fixture(t, setup_drop_errored, teardown);
	tcase_add_test(t, errored_frame_dropped_sequence_skipped);
	suite_add_tcase(s, t);

	t = tcase_create("limits");
	tcase_add_checked_fixture(t, setup_limited, teardown);
	tcase_add_test(t, opens_limited_per_process_and_user);
	tcase_add_test(t, buffer_memory_limited_per_user);
	suite_add_tcase(s, t);

	t = tcase_create("exit-on-unplug");
	tcase_add_checked_fixture(t, setup_exit_on_unplug, teardown);
	tcase_add_test(t, exit_on_unplug_answers_enodev);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return unit_run(device_suite());
}
