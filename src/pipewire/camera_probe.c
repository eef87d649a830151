/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a uvcuse node is (camera_priv.h): opened as the caller, checked to
 * be a uvcuse capture node, its modes enumerated within a budget, its card
 * name and udev's IDs read, and the PipeWire node named. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/videodev2.h>
#if HAVE_LIBSYSTEMD
#include <systemd/sd-device.h>
#endif

#include "camera_priv.h"
#include "core/log.h"
#include "uvcuse/uvcuse.h"

/* A daemon that never ends an enumeration is cut short here: per list,
 * in modes offered and in ioctls spent on it all. */
#define ENUM_MAX 256
#define MODES_MAX 1024
#define ENUM_IOCTLS_MAX 20000

int camera_ioctl(int fd, unsigned long req, void *arg)
{
	int r;
	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

int camera_open_node(const char *path)
{
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* An enumeration ioctl, within the budget (-E2BIG beyond: a daemon that
 * lists without end does not hold the bridge). */
static int enum_ioctl(struct bridge_camera *c, int fd, unsigned long req, void *arg)
{
	if (++c->enum_ioctls > ENUM_IOCTLS_MAX || c->modes.n >= MODES_MAX)
		return -E2BIG;
	return camera_ioctl(fd, req, arg);
}

static int add_interval(struct bridge_camera *c, uint32_t fourcc, uint32_t w, uint32_t h,
			const struct v4l2_fract *interval)
{
	if (!interval->numerator || !interval->denominator)
		return 0;
	struct bridge_mode m = { .fourcc = fourcc, .width = w, .height = h,
				 .fps_num = interval->denominator, .fps_den = interval->numerator };
	return bridge_modes_add(&c->modes, &m);
}

static int enum_intervals(struct bridge_camera *c, int fd, uint32_t fourcc, uint32_t w, uint32_t h)
{
	for (uint32_t k = 0; k < ENUM_MAX; k++) {
		struct v4l2_frmivalenum fi = { .index = k, .pixel_format = fourcc,
					       .width = w, .height = h };
		int r = enum_ioctl(c, fd, VIDIOC_ENUM_FRAMEINTERVALS, &fi);
		if (r == -E2BIG)
			return r;
		if (r < 0)
			return 0;
		int err = 0;
		if (fi.type == V4L2_FRMIVAL_TYPE_DISCRETE) {
			err = add_interval(c, fourcc, w, h, &fi.discrete);
		} else {
			/* continuous or stepwise: its fastest and slowest rates */
			err = add_interval(c, fourcc, w, h, &fi.stepwise.min);
			if (!err)
				err = add_interval(c, fourcc, w, h, &fi.stepwise.max);
		}
		if (err < 0 || fi.type != V4L2_FRMIVAL_TYPE_DISCRETE)
			return err;
	}
	return 0;
}

static int enum_modes(struct bridge_camera *c, int fd)
{
	for (uint32_t i = 0; i < ENUM_MAX; i++) {
		struct v4l2_fmtdesc fmt = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		if (enum_ioctl(c, fd, VIDIOC_ENUM_FMT, &fmt) < 0)
			break;
		if (!bridge_mode_fourcc_known(fmt.pixelformat))
			continue;
		for (uint32_t j = 0; j < ENUM_MAX; j++) {
			struct v4l2_frmsizeenum fs = { .index = j, .pixel_format = fmt.pixelformat };
			if (enum_ioctl(c, fd, VIDIOC_ENUM_FRAMESIZES, &fs) < 0)
				break;
			if (fs.type != V4L2_FRMSIZE_TYPE_DISCRETE) {
				/* UVC cameras list discrete sizes; offer the largest */
				int err = enum_intervals(c, fd, fmt.pixelformat, fs.stepwise.max_width,
							 fs.stepwise.max_height);
				if (err < 0 && err != -E2BIG)
					return err;
				break;
			}
			int err = enum_intervals(c, fd, fmt.pixelformat, fs.discrete.width,
						 fs.discrete.height);
			if (err < 0 && err != -E2BIG)
				return err;
		}
	}
	if (c->enum_ioctls > ENUM_IOCTLS_MAX || c->modes.n >= MODES_MAX)
		log_warn("%s: the node lists too much: %zu modes kept", c->path, c->modes.n);
	return c->modes.n ? 0 : -ENODATA;
}

/* udev's IDs of the node (our rule imports them from `uvcuse
 * --udev-properties`); left empty without udev, or in a build without
 * libsystemd. */
static void read_identity(struct bridge_camera *c, dev_t rdev)
{
#if HAVE_LIBSYSTEMD
	sd_device *dev = NULL;
	if (sd_device_new_from_devnum(&dev, 'c', rdev) < 0)
		return;
	const char *value;
	if (sd_device_get_property_value(dev, "ID_VENDOR_ID", &value) >= 0)
		snprintf(c->vendor, sizeof(c->vendor), "%s", value);
	if (sd_device_get_property_value(dev, "ID_MODEL_ID", &value) >= 0)
		snprintf(c->product, sizeof(c->product), "%s", value);
	if (sd_device_get_property_value(dev, "ID_SERIAL", &value) >= 0)
		snprintf(c->serial, sizeof(c->serial), "%s", value);
	sd_device_unref(dev);
#else
	(void)c, (void)rdev;
#endif
}

int camera_probe(struct bridge_camera *c)
{
	int fd = camera_open_node(c->path);
	if (fd < 0)
		return fd;
	struct stat st;
	struct v4l2_capability cap;
	struct uvcuse_hello hello;
	memset(&cap, 0, sizeof(cap));
	memset(&hello, 0, sizeof(hello));
	int err = fstat(fd, &st) < 0 ? -errno : 0;
	if (!err && !S_ISCHR(st.st_mode))
		err = -ENOTTY;
	if (!err)
		err = camera_ioctl(fd, VIDIOC_QUERYCAP, &cap);
	uint32_t caps = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps
								   : cap.capabilities;
	if (!err && (!(caps & V4L2_CAP_VIDEO_CAPTURE) || !(caps & V4L2_CAP_STREAMING)))
		err = -ENOTTY;
	/* only uvcuse answers its private HELLO (ENOTTY elsewhere) */
	if (!err && (camera_ioctl(fd, UVCUSE_IOC_HELLO, &hello) < 0 || hello.magic != UVCUSE_MAGIC))
		err = -ENOTTY;
	if (!err)
		err = enum_modes(c, fd);
	close(fd);
	if (err < 0)
		return err;
	memcpy(c->card, cap.card, sizeof(cap.card));
	c->card[sizeof(c->card) - 1] = 0;
	read_identity(c, st.st_rdev);
	const char *base = strrchr(c->path, '/');
	base = base ? base + 1 : c->path;
	/* stable across replugs when the camera has a serial, as PipeWire's
	 * own v4l2 nodes are named after the device */
	if (c->serial[0])
		snprintf(c->name, sizeof(c->name), "uvcuse_input.%s", c->serial);
	else
		snprintf(c->name, sizeof(c->name), "uvcuse_input.%.64s", base);
	return 0;
}
