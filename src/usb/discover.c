/* Finding UVC cameras and claiming one. Identity (port path, bus_info,
 * strings) comes from sysfs, which needs no access to the device; the
 * configuration descriptor comes from the device itself (GET_DESCRIPTOR) once
 * it is open, from sysfs's raw copy when only listing. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/usb/video.h>

#include "core/log.h"
#include "usb/internal.h"
#include "uvc/quirks.h"

#define SYSFS_USB "/sys/bus/usb/devices"
#define MAX_CONFIG_LEN 65535

/* strcpy that cuts at len - 1 bytes. */
static void copy_str(char *out, size_t len, const char *src)
{
	size_t n = strlen(src);
	if (n >= len)
		n = len - 1;
	memcpy(out, src, n);
	out[n] = '\0';
}

/* Reads a small sysfs attribute, without the trailing newline. */
static int sysfs_read(const char *dir, const char *attr, char *out, size_t len)
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
			copy_str(out, len, parent ? parent + 1 : target);
			return;
		}
	}
	snprintf(out, len, "usb%u", bus); /* no sysfs: still unique */
}

/* libusb_close leaves a wrapped handle's file open. */
static void close_handle(struct usb_camera *cam)
{
	if (cam->handle)
		libusb_close(cam->handle);
	cam->handle = NULL;
	if (cam->wrapped_fd >= 0)
		close(cam->wrapped_fd);
	cam->wrapped_fd = -1;
}

/* bus_info from the port path "B-P.P": "usb-<host controller>-P.P". */
static void fill_bus_info(struct usb_camera_id *id)
{
	char hcd[64];
	hcd_name(id->bus, hcd, sizeof(hcd));
	const char *ports = strchr(id->port_path, '-');
	char info[128];
	snprintf(info, sizeof(info), "usb-%s-%s", hcd, ports ? ports + 1 : "");
	copy_str(id->bus_info, sizeof(id->bus_info), info);
}

/* Fills id from the libusb device and sysfs. -ENOENT for root hubs. */
static int build_id(libusb_device *dev, struct usb_camera_id *id)
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
	fill_bus_info(id);
	sysfs_read(id->port_path, "serial", id->serial, sizeof(id->serial));
	sysfs_read(id->port_path, "product", id->product, sizeof(id->product));
	sysfs_read(id->port_path, "manufacturer", id->manufacturer, sizeof(id->manufacturer));
	return 0;
}

/* Strings by asking the device, for systems without sysfs attributes. */
static void fill_strings(libusb_device_handle *h, struct usb_camera_id *id)
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

/* String descriptor index as UTF-8 (the kernel's usb_string(): the
 * device's first language, surrogate pairs joined, a lone surrogate
 * dropped), "" when the device has none or fails. */
static void read_string(libusb_device_handle *h, uint8_t index, char *out, size_t cap)
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

/* The VideoControl interfaces of the active configuration (libusb's cached
 * copy, no device I/O): the video class's, and the vendor-specific ones of
 * the cameras uvcvideo's device table binds so. Returns how many were
 * stored in ifs. */
static unsigned video_functions(libusb_device *dev, uint8_t *ifs, unsigned max)
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

/* sysfs's "descriptors": the device descriptor, then every configuration
 * descriptor as the device sent it. Picks the active one. */
static int sysfs_config(const char *port_path, uint8_t **out, size_t *outlen)
{
	char path[PATH_MAX], value[16];
	snprintf(path, sizeof(path), SYSFS_USB "/%s/descriptors", port_path);
	int active = 0;
	if (sysfs_read(port_path, "bConfigurationValue", value, sizeof(value)) == 0)
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

/* The active configuration descriptor from the device (GET_DESCRIPTOR). */
static int device_config(libusb_device_handle *h, uint8_t **out, size_t *outlen)
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

int usb_enumerate(struct usb_ctx *ctx, usb_camera_cb cb, void *data)
{
	libusb_device **list;
	ssize_t n = libusb_get_device_list(ctx->lusb, &list);
	if (n < 0)
		return usb_errno((int)n);
	int ret = 0;
	for (ssize_t i = 0; i < n && !ret; i++) {
		uint8_t ifs[8];
		unsigned nf = video_functions(list[i], ifs, 8);
		if (!nf)
			continue;
		struct usb_camera_id id;
		if (build_id(list[i], &id) < 0)
			continue;
		uint8_t *desc = NULL;
		size_t len = 0;
		int r = sysfs_config(id.port_path, &desc, &len);
		libusb_device_handle *h = NULL;
		if (r < 0 && libusb_open(list[i], &h) == 0) {
			r = device_config(h, &desc, &len);
			fill_strings(h, &id);
			libusb_close(h);
		}
		for (unsigned f = 0; f < nf && !ret; f++) {
			id.control_interface = ifs[f];
			struct uvc_camera *model = NULL;
			struct uvc_parse_status st = { { 0 }, { 0 }, 0 };
			if (r < 0)
				snprintf(st.error, sizeof(st.error),
					 "cannot read the configuration descriptor: %s", strerror(-r));
			else if (uvc_parse_function(desc, len, ifs[f], &model, &st) < 0 && !st.error[0])
				snprintf(st.error, sizeof(st.error), "descriptor parse failed");
			ret = cb(data, &id, model, model ? NULL : st.error);
			uvc_camera_free(model);
		}
		free(desc);
	}
	libusb_free_device_list(list, 1);
	return ret;
}

bool usb_match_id(const struct usb_match *m, const struct usb_camera_id *id)
{
	if (m->by_id && (id->vid != m->vid || id->pid != m->pid))
		return false;
	if (m->port_path && strcmp(m->port_path, id->port_path) != 0)
		return false;
	if (m->serial && !usb_serial_matches(m->serial, id->serial))
		return false;
	return true;
}

/* Detaches the kernel driver of iface if one is bound, then claims it. */
static int claim(struct usb_camera *cam, uint8_t iface, char *err, size_t errlen)
{
	unsigned k = cam->n_claimed;
	if (k >= sizeof(cam->claimed)) {
		snprintf(err, errlen, "too many streaming interfaces");
		return -ENOTSUP;
	}
	int r = libusb_kernel_driver_active(cam->handle, iface);
	if (r == 1) {
		r = libusb_detach_kernel_driver(cam->handle, iface);
		if (r < 0 && r != LIBUSB_ERROR_NOT_FOUND) {
			snprintf(err, errlen, "interface %u: cannot detach the kernel driver: %s", iface,
				 libusb_strerror(r));
			return usb_errno(r);
		}
		cam->detached[k] = r == 0;
	}
	r = libusb_claim_interface(cam->handle, iface);
	if (r < 0) {
		if (r == LIBUSB_ERROR_BUSY)
			snprintf(err, errlen, "interface %u is claimed by another program", iface);
		else
			snprintf(err, errlen, "interface %u: cannot claim: %s", iface,
				 libusb_strerror(r));
		if (cam->detached[k])
			libusb_attach_kernel_driver(cam->handle, iface);
		cam->detached[k] = false;
		return usb_errno(r);
	}
	cam->claimed[k] = iface;
	cam->n_claimed++;
	return 0;
}

/* Streams first, then VideoControl: a kernel driver given the VideoControl
 * interface back (uvcvideo) claims the streaming interfaces, which must be
 * free by then. */
static void release_all(struct usb_camera *cam)
{
	while (cam->n_claimed) {
		unsigned k = --cam->n_claimed;
		uint8_t iface = cam->claimed[k];
		int r = libusb_release_interface(cam->handle, iface);
		if (r < 0 && r != LIBUSB_ERROR_NO_DEVICE)
			log_warn("%s: releasing interface %u: %s", cam->id.port_path, iface,
				libusb_strerror(r));
		if (cam->detached[k] && !cam->gone) {
			r = libusb_attach_kernel_driver(cam->handle, iface);
			/* NOT_FOUND: no driver wants the interface alone (a
			 * streaming interface); its function's driver takes it. */
			if (r < 0 && r != LIBUSB_ERROR_NOT_FOUND && r != LIBUSB_ERROR_NO_DEVICE)
				log_warn("%s: giving interface %u back to the kernel: %s",
					cam->id.port_path, iface, libusb_strerror(r));
		}
		cam->detached[k] = false;
	}
}

static int open_device(struct usb_ctx *ctx, libusb_device *dev, const struct usb_camera_id *id,
		       uint8_t control_interface, struct usb_camera **out, char *err, size_t errlen)
{
	struct usb_camera *cam = calloc(1, sizeof(*cam));
	if (!cam)
		return -ENOMEM;
	cam->ctx = ctx;
	cam->wrapped_fd = -1;
	cam->id = *id;
	cam->id.control_interface = control_interface;
	int r = libusb_open(dev, &cam->handle);
	if (r < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", id->port_path, libusb_strerror(r));
		free(cam);
		return usb_errno(r);
	}
	fill_strings(cam->handle, &cam->id);
	uint8_t *desc = NULL;
	size_t len = 0;
	r = device_config(cam->handle, &desc, &len);
	if (r < 0) {
		log_warn("%s: GET_DESCRIPTOR(configuration) failed (%s), using sysfs's copy",
			id->port_path, strerror(-r));
		r = sysfs_config(id->port_path, &desc, &len);
	}
	if (r < 0) {
		snprintf(err, errlen, "%s: cannot read the configuration descriptor: %s",
			 id->port_path, strerror(-r));
		goto fail;
	}
	struct uvc_parse_status st = { { 0 }, { 0 }, 0 };
	r = uvc_parse_function(desc, len, control_interface, &cam->model, &st);
	cam->config = desc;
	cam->config_len = len;
	if (r < 0) {
		snprintf(err, errlen, "%s: not a usable UVC camera: %s", id->port_path,
			 st.error[0] ? st.error : strerror(-r));
		r = r == -ENOMEM ? r : -ENOTSUP;
		goto fail;
	}
	if (st.n_warnings)
		log_warn("%s: descriptor: %u warnings, last: %s", id->port_path, st.n_warnings,
			st.warning);
	int speed = libusb_get_device_speed(dev);
	for (unsigned i = 0; i < cam->model->n_streams; i++)
		cam->model->streams[i].full_speed = speed != LIBUSB_SPEED_UNKNOWN &&
						    speed <= LIBUSB_SPEED_FULL;
	cam->id.function_index = uvc_function_string_index(desc, len, cam->model->control_interface);
	read_string(cam->handle, cam->id.function_index, cam->id.function, sizeof(cam->id.function));
	r = claim(cam, cam->model->control_interface, err, errlen);
	for (unsigned i = 0; r == 0 && i < cam->model->n_streams; i++)
		r = claim(cam, cam->model->streams[i].interface, err, errlen);
	if (r < 0)
		goto fail;
	usb_ctx_add_camera(ctx, cam);
	*out = cam;
	return 0;
fail:
	release_all(cam);
	close_handle(cam);
	uvc_camera_free(cam->model);
	free(cam->config);
	free(cam);
	return r;
}

int usb_camera_open(struct usb_ctx *ctx, const struct usb_match *match, struct usb_camera **out,
		    char *err, size_t errlen)
{
	static const struct usb_match any;
	if (!match)
		match = &any;
	snprintf(err, errlen, "no camera matches");
	libusb_device **list;
	ssize_t n = libusb_get_device_list(ctx->lusb, &list);
	if (n < 0) {
		snprintf(err, errlen, "cannot list USB devices: %s", libusb_strerror((int)n));
		return usb_errno((int)n);
	}
	int ret = -ENODEV;
	for (ssize_t i = 0; i < n; i++) {
		struct usb_camera_id id;
		if (build_id(list[i], &id) < 0)
			continue;
		if (match->serial && !id.serial[0]) {
			/* no sysfs attribute: ask the device */
			libusb_device_handle *h;
			if (libusb_open(list[i], &h) == 0) {
				fill_strings(h, &id);
				libusb_close(h);
			}
		}
		if (!usb_match_id(match, &id))
			continue;
		uint8_t ifs[8];
		if (!video_functions(list[i], ifs, 8)) {
			snprintf(err, errlen, "%s (%04x:%04x) has no UVC video function", id.port_path,
				 id.vid, id.pid);
			ret = -ENOTSUP;
			continue;
		}
		ret = open_device(ctx, list[i], &id, ifs[0], out, err, errlen);
		break;
	}
	libusb_free_device_list(list, 1);
	return ret;
}

void usb_camera_close(struct usb_camera *cam)
{
	if (!cam)
		return;
	usb_stream_stop(cam);
	usb_status_stop(cam);
	usb_ctrl_stop(cam);
	usb_ctx_remove_camera(cam->ctx, cam);
	release_all(cam);
	close_handle(cam);
	uvc_camera_free(cam->model);
	free(cam->config);
	free(cam);
}

bool usb_camera_gone(const struct usb_camera *cam)
{
	return cam->gone;
}

/* The camera come back, found in sysfs rather than in libusb's device
 * list: libusb keeps that list from udevd's netlink events, which never
 * reach a daemon in a private network namespace (the shipped unit). The
 * same VID:PID and serial, or without a serial the same port. Opens its
 * usbfs node: the file, with its sysfs name in port_path (32 bytes), or
 * -ENODEV when it is not there, or open's -errno. */
static int open_again(const struct usb_camera *cam, char *port_path, uint8_t *bus,
		      uint8_t *address)
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
		char text[128];
		sysfs_read(e->d_name, "idVendor", text, sizeof(text));
		if (strtoul(text, NULL, 16) != cam->id.vid)
			continue;
		sysfs_read(e->d_name, "idProduct", text, sizeof(text));
		if (strtoul(text, NULL, 16) != cam->id.pid)
			continue;
		if (cam->id.serial[0]) {
			sysfs_read(e->d_name, "serial", text, sizeof(text));
			if (strcmp(text, cam->id.serial))
				continue;
		} else if (strcmp(e->d_name, cam->id.port_path)) {
			continue;
		}
		sysfs_read(e->d_name, "busnum", text, sizeof(text));
		unsigned long b = strtoul(text, NULL, 10);
		sysfs_read(e->d_name, "devnum", text, sizeof(text));
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
		copy_str(port_path, sizeof(cam->id.port_path), e->d_name);
		*bus = (uint8_t)b;
		*address = (uint8_t)a;
		break;
	}
	closedir(dir);
	return r;
}

int usb_camera_reattach(struct usb_camera *cam, char *err, size_t errlen)
{
	snprintf(err, errlen, "not there");
	if (!cam->gone)
		return 0;
	char port_path[sizeof(cam->id.port_path)];
	uint8_t bus = 0, address = 0;
	int fd = open_again(cam, port_path, &bus, &address);
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
	r = device_config(h, &desc, &len);
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
	release_all(cam);
	close_handle(cam);
	cam->handle = h;
	cam->wrapped_fd = fd;
	h = NULL;
	fd = -1;
	cam->gone = false;
	/* the address changed; the port may have */
	cam->id.bus = bus;
	cam->id.address = address;
	copy_str(cam->id.port_path, sizeof(cam->id.port_path), port_path);
	fill_bus_info(&cam->id);
	r = claim(cam, cam->model->control_interface, err, errlen);
	for (unsigned i = 0; r == 0 && i < cam->model->n_streams; i++)
		r = claim(cam, cam->model->streams[i].interface, err, errlen);
	if (r < 0) {
		release_all(cam);
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

const struct usb_camera_id *usb_camera_id(const struct usb_camera *cam)
{
	return &cam->id;
}

uint32_t usb_camera_apply_quirks(struct usb_camera *cam, const uint32_t *override,
				 const char **entry)
{
	/* the VideoControl interface as the USB core offers it to uvcvideo */
	uint8_t cls = 0x0e, sub = 1, proto = 0;
	const uint8_t *d;
	for (size_t pos = 0; (d = uvc_next_descriptor(cam->config, cam->config_len, &pos));)
		if (d[1] == LIBUSB_DT_INTERFACE && d[0] >= 9 &&
		    d[2] == cam->model->control_interface && d[3] == 0) {
			cls = d[5];
			sub = d[6];
			proto = d[7];
			break;
		}
	const struct uvc_quirk_entry *e =
		uvc_quirks_match(cam->id.vid, cam->id.pid, cam->id.bcd_device, cls, sub, proto);
	uint32_t quirks = override ? *override : e ? e->quirks : 0;
	*entry = e && e->vid ? e->name : NULL;
	if (uvc_quirks_apply(cam->model, e, quirks) < 0)
		log_warn("%s: out of memory applying the quirks", cam->id.port_path);
	return quirks;
}

const struct uvc_camera *usb_camera_model(const struct usb_camera *cam)
{
	return cam->model;
}
