/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a USB device says about itself, read without claiming it. Identity
 * (port path, bus_info, strings) comes from sysfs, which needs no access to
 * the device (its string descriptors serve where sysfs has none); the
 * configuration descriptor from the device itself (GET_DESCRIPTOR) once it
 * is open, from sysfs's raw copy when only listing; the VideoControl
 * interfaces from libusb's cached copy of the configuration. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/usb/video.h>

#include "usb/internal.h"
#include "uvc/quirks.h"

void usb_copy_str(char *out, size_t len, const char *src)
{
	size_t n = strlen(src);
	if (n >= len)
		n = len - 1;
	memcpy(out, src, n);
	out[n] = '\0';
}

int usb_sysfs_read(const char *dir, const char *attr, char *out, size_t len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), SYSFS_USB "/%s/%s", dir, attr);
	out[0] = '\0';
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(out, (int)len, f))
		out[0] = '\0';
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

/* The host controller's device name, as uvcvideo's bus_info uses it:
 * /sys/bus/usb/devices/usbN links to .../<controller>/usbN. */
static void hcd_name(uint8_t bus, char *out, size_t len)
{
	char link[PATH_MAX], target[PATH_MAX];
	snprintf(link, sizeof(link), SYSFS_USB "/usb%u", bus);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		char *last = strrchr(target, '/');
		if (last) {
			*last = '\0';
			char *parent = strrchr(target, '/');
			usb_copy_str(out, len, parent ? parent + 1 : target);
			return;
		}
	}
	snprintf(out, len, "usb%u", bus); /* no sysfs: still unique */
}

void usb_fill_bus_info(struct usb_camera_id *id)
{
	char hcd[64];
	hcd_name(id->bus, hcd, sizeof(hcd));
	const char *ports = strchr(id->port_path, '-');
	char info[128];
	snprintf(info, sizeof(info), "usb-%s-%s", hcd, ports ? ports + 1 : "");
	usb_copy_str(id->bus_info, sizeof(id->bus_info), info);
}

int usb_build_id(libusb_device *dev, struct usb_camera_id *id)
{
	memset(id, 0, sizeof(*id));
	struct libusb_device_descriptor dd;
	int r = libusb_get_device_descriptor(dev, &dd);
	if (r < 0)
		return usb_errno(r);
	uint8_t ports[8];
	int n = libusb_get_port_numbers(dev, ports, sizeof(ports));
	if (n < 0)
		return -ENOENT;
	id->vid = dd.idVendor;
	id->pid = dd.idProduct;
	id->bcd_usb = dd.bcdUSB;
	id->bcd_device = dd.bcdDevice;
	id->bus = libusb_get_bus_number(dev);
	id->address = libusb_get_device_address(dev);
	id->speed = libusb_get_device_speed(dev);
	char devpath[32] = "";
	size_t off = 0;
	for (int i = 0; i < n; i++)
		off += (size_t)snprintf(devpath + off, sizeof(devpath) - off, i ? ".%u" : "%u",
					ports[i]);
	/* sysfs names a root hub (no ports) "usbN" */
	if (n == 0)
		snprintf(id->port_path, sizeof(id->port_path), "usb%u", id->bus);
	else
		snprintf(id->port_path, sizeof(id->port_path), "%u-%s", id->bus, devpath);
	usb_fill_bus_info(id);
	usb_sysfs_read(id->port_path, "serial", id->serial, sizeof(id->serial));
	usb_sysfs_read(id->port_path, "product", id->product, sizeof(id->product));
	usb_sysfs_read(id->port_path, "manufacturer", id->manufacturer, sizeof(id->manufacturer));
	return 0;
}

void usb_fill_strings(libusb_device_handle *h, struct usb_camera_id *id)
{
	struct libusb_device_descriptor dd;
	if (libusb_get_device_descriptor(libusb_get_device(h), &dd) < 0)
		return;
	struct {
		uint8_t index;
		char *out;
		size_t len;
	} s[] = {
		{ dd.iSerialNumber, id->serial, sizeof(id->serial) },
		{ dd.iProduct, id->product, sizeof(id->product) },
		{ dd.iManufacturer, id->manufacturer, sizeof(id->manufacturer) },
	};
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		if (s[i].out[0] || !s[i].index)
			continue;
		if (libusb_get_string_descriptor_ascii(h, s[i].index, (unsigned char *)s[i].out,
						       (int)s[i].len) < 0)
			s[i].out[0] = '\0';
	}
}

void usb_read_string(libusb_device_handle *h, uint8_t index, char *out, size_t cap)
{
	unsigned char buf[255];
	out[0] = '\0';
	if (!index || cap < 4)
		return;
	int n = libusb_get_string_descriptor(h, 0, 0, buf, sizeof(buf));
	if (n < 4)
		return;
	uint16_t lang = (uint16_t)(buf[2] | buf[3] << 8);
	n = libusb_get_string_descriptor(h, index, lang, buf, sizeof(buf));
	if (n < 2 || buf[1] != LIBUSB_DT_STRING)
		return;
	if (buf[0] < n)
		n = buf[0];
	size_t o = 0;
	for (int i = 2; i + 1 < n; i += 2) {
		unsigned c = buf[i] | buf[i + 1] << 8;
		if (c >= 0xd800 && c < 0xdc00 && i + 3 < n) { /* a pair */
			unsigned lo = buf[i + 2] | buf[i + 3] << 8;
			if (lo >= 0xdc00 && lo < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				i += 2;
			}
		}
		if (c >= 0xd800 && c < 0xe000)
			continue;
		unsigned need = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
		if (o + need >= cap)
			break;
		if (need == 1) {
			out[o++] = (char)c;
		} else if (need == 2) {
			out[o++] = (char)(0xc0 | c >> 6);
			out[o++] = (char)(0x80 | (c & 0x3f));
		} else if (need == 3) {
			out[o++] = (char)(0xe0 | c >> 12);
			out[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			out[o++] = (char)(0x80 | (c & 0x3f));
		} else {
			out[o++] = (char)(0xf0 | c >> 18);
			out[o++] = (char)(0x80 | (c >> 12 & 0x3f));
			out[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			out[o++] = (char)(0x80 | (c & 0x3f));
		}
	}
	out[o] = '\0';
}

unsigned usb_video_functions(libusb_device *dev, uint8_t *ifs, unsigned max)
{
	struct libusb_config_descriptor *cfg;
	struct libusb_device_descriptor dd;
	if (libusb_get_device_descriptor(dev, &dd) < 0 ||
	    libusb_get_active_config_descriptor(dev, &cfg) < 0)
		return 0;
	unsigned n = 0;
	for (unsigned i = 0; i < cfg->bNumInterfaces && n < max; i++) {
		const struct libusb_interface *itf = &cfg->interface[i];
		if (itf->num_altsetting < 1)
			continue;
		const struct libusb_interface_descriptor *a = &itf->altsetting[0];
		if (a->bInterfaceSubClass != UVC_SC_VIDEOCONTROL)
			continue;
		if (a->bInterfaceClass == LIBUSB_CLASS_VIDEO ||
		    (a->bInterfaceClass == LIBUSB_CLASS_VENDOR_SPEC &&
		     uvc_quirks_match(dd.idVendor, dd.idProduct, dd.bcdDevice, a->bInterfaceClass,
				      a->bInterfaceSubClass, a->bInterfaceProtocol)))
			ifs[n++] = a->bInterfaceNumber;
	}
	libusb_free_config_descriptor(cfg);
	return n;
}

int usb_sysfs_config(const char *port_path, uint8_t **out, size_t *outlen)
{
	char path[PATH_MAX], value[16];
	snprintf(path, sizeof(path), SYSFS_USB "/%s/descriptors", port_path);
	int active = 0;
	if (usb_sysfs_read(port_path, "bConfigurationValue", value, sizeof(value)) == 0)
		active = atoi(value);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	int r = 0;
	while (buf) {
		if (len == cap) {
			uint8_t *nb = cap < (1u << 20) ? realloc(buf, cap * 2) : NULL;
			if (!nb) {
				r = -EFBIG;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (!buf)
		return -ENOMEM;
	if (r < 0) {
		free(buf);
		return r;
	}
	r = -ENOENT;
	size_t pos = len >= 18 ? buf[0] : len;
	while (pos + 9 <= len) {
		size_t total = buf[pos + 2] | (size_t)buf[pos + 3] << 8;
		if (buf[pos + 1] != LIBUSB_DT_CONFIG || total < 9)
			break;
		if (total > len - pos)
			total = len - pos;
		if (!active || buf[pos + 5] == active) {
			*out = malloc(total);
			if (!*out) {
				r = -ENOMEM;
				break;
			}
			memcpy(*out, buf + pos, total);
			*outlen = total;
			r = 0;
			break;
		}
		pos += total;
	}
	free(buf);
	return r;
}

int usb_device_config(libusb_device_handle *h, uint8_t **out, size_t *outlen)
{
	libusb_device *dev = libusb_get_device(h);
	int value;
	int r = libusb_get_configuration(h, &value);
	if (r < 0)
		return usb_errno(r);
	struct libusb_device_descriptor dd;
	r = libusb_get_device_descriptor(dev, &dd);
	if (r < 0)
		return usb_errno(r);
	int index = -1;
	for (uint8_t i = 0; i < dd.bNumConfigurations && index < 0; i++) {
		struct libusb_config_descriptor *cfg;
		if (libusb_get_config_descriptor(dev, i, &cfg) == 0) {
			if (cfg->bConfigurationValue == value)
				index = i;
			libusb_free_config_descriptor(cfg);
		}
	}
	if (index < 0)
		return -ENOENT;
	uint8_t head[9];
	r = libusb_get_descriptor(h, LIBUSB_DT_CONFIG, (uint8_t)index, head, sizeof(head));
	if (r < 0)
		return usb_errno(r);
	if (r < 4 || head[1] != LIBUSB_DT_CONFIG)
		return -EPROTO;
	size_t total = head[2] | (size_t)head[3] << 8;
	if (total < 9)
		return -EPROTO;
	uint8_t *buf = malloc(total);
	if (!buf)
		return -ENOMEM;
	r = libusb_get_descriptor(h, LIBUSB_DT_CONFIG, (uint8_t)index, buf, (int)total);
	if (r < 0) {
		free(buf);
		return usb_errno(r);
	}
	*out = buf;
	*outlen = (size_t)r; /* a short answer is parsed as far as it goes */
	return 0;
}
