/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A camera come back after an unplug, taken again by the same struct
 * usb_camera: found in sysfs, its usbfs node opened and wrapped by libusb,
 * its descriptors compared with those the camera had, its interfaces
 * claimed again. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "usb/internal.h"

bool usb_replug_candidate(const struct usb_camera_id *was, const struct usb_seen_device *seen,
			  enum usb_replug_rule rule)
{
	if (seen->vid != was->vid || seen->pid != was->pid || strcmp(seen->serial, was->serial))
		return false;
	/* without a serial, the port is all that tells two of a model apart */
	if (rule == USB_REPLUG_SAME_PORT || !was->serial[0])
		return !strcmp(seen->port_path, was->port_path);
	return true;
}

/* The camera come back, found in sysfs rather than in libusb's device
 * list: libusb keeps that list from udevd's netlink events, which never
 * reach a daemon in a private network namespace (the shipped unit). The
 * device the rule allows (usb_replug_candidate). Opens its usbfs node:
 * the file, with its sysfs name in port_path (32 bytes), or -ENODEV when
 * it is not there, or open's -errno. */
static int open_again(const struct usb_camera *cam, enum usb_replug_rule rule, char *port_path,
		      uint8_t *bus, uint8_t *address)
{
	DIR *dir = opendir(SYSFS_USB);
	if (!dir)
		return -ENODEV;
	int r = -ENODEV;
	struct dirent *e;
	while ((e = readdir(dir))) {
		/* devices are "B-P.P"; interfaces have a ':', root hubs are "usbN" */
		if (!isdigit((unsigned char)e->d_name[0]) || strchr(e->d_name, ':') ||
		    strlen(e->d_name) >= sizeof(cam->id.port_path))
			continue;
		char text[128], serial[sizeof(cam->id.serial)];
		struct usb_seen_device seen = { .serial = serial, .port_path = e->d_name };
		usb_sysfs_read(e->d_name, "idVendor", text, sizeof(text));
		seen.vid = (uint16_t)strtoul(text, NULL, 16);
		usb_sysfs_read(e->d_name, "idProduct", text, sizeof(text));
		seen.pid = (uint16_t)strtoul(text, NULL, 16);
		usb_sysfs_read(e->d_name, "serial", serial, sizeof(serial));
		if (!usb_replug_candidate(&cam->id, &seen, rule))
			continue;
		usb_sysfs_read(e->d_name, "busnum", text, sizeof(text));
		unsigned long b = strtoul(text, NULL, 10);
		usb_sysfs_read(e->d_name, "devnum", text, sizeof(text));
		unsigned long a = strtoul(text, NULL, 10);
		if (!b || b > 255 || !a || a > 255)
			continue;
		char node[64];
		snprintf(node, sizeof(node), "/dev/bus/usb/%03lu/%03lu", b, a);
		r = open(node, O_RDWR | O_CLOEXEC);
		if (r < 0) {
			r = -errno;
			continue;
		}
		usb_copy_str(port_path, sizeof(cam->id.port_path), e->d_name);
		*bus = (uint8_t)b;
		*address = (uint8_t)a;
		break;
	}
	closedir(dir);
	return r;
}

int usb_camera_reattach(struct usb_camera *cam, enum usb_replug_rule rule, char *err,
			size_t errlen)
{
	snprintf(err, errlen, "not there");
	if (!cam->gone)
		return 0;
	char port_path[sizeof(cam->id.port_path)];
	uint8_t bus = 0, address = 0;
	int fd = open_again(cam, rule, port_path, &bus, &address);
	if (fd < 0) {
		if (fd != -ENODEV)
			snprintf(err, errlen, "cannot open its usbfs node: %s", strerror(-fd));
		return fd;
	}
	libusb_device_handle *h = NULL;
	uint8_t *desc = NULL;
	size_t len = 0;
	int r = libusb_wrap_sys_device(cam->ctx->lusb, (intptr_t)fd, &h);
	if (r < 0) {
		snprintf(err, errlen, "libusb cannot take its usbfs node: %s", libusb_strerror(r));
		r = usb_errno(r);
		goto out;
	}
	r = usb_device_config(h, &desc, &len);
	if (r < 0) {
		snprintf(err, errlen, "cannot read the configuration descriptor: %s", strerror(-r));
		goto out;
	}
	if (len != cam->config_len || memcmp(desc, cam->config, len) != 0) {
		snprintf(err, errlen, "its descriptors differ from the camera's that was unplugged");
		r = -ESTALE;
		goto out;
	}
	/* the old handle's interfaces go with it; the new one claims them */
	usb_release_interfaces(cam);
	usb_close_handle(cam);
	cam->handle = h;
	cam->wrapped_fd = fd;
	h = NULL;
	fd = -1;
	cam->gone = false;
	/* the address changed; the port may have */
	cam->id.bus = bus;
	cam->id.address = address;
	usb_copy_str(cam->id.port_path, sizeof(cam->id.port_path), port_path);
	usb_fill_bus_info(&cam->id);
	r = usb_claim_interfaces(cam, err, errlen);
	if (r < 0) {
		usb_release_interfaces(cam);
		cam->gone = true; /* the next arrival tries again */
		goto out;
	}
	cam->ctrlq.stopping = false;
	cam->short_answer_warned = false;
out:
	if (h)
		libusb_close(h);
	if (fd >= 0)
		close(fd);
	free(desc);
	return r;
}
