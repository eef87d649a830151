/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Finding UVC cameras and claiming one: enumeration and matching over
 * libusb's device list (what each device says of itself: device_info.c),
 * open = claim the interfaces and parse the configuration descriptor the
 * device sends, close = give the interfaces back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "usb/internal.h"
#include "uvc/quirks.h"

int usb_enumerate_ids(struct usb_ctx *ctx, usb_camera_cb cb, void *data)
{
	libusb_device **list;
	ssize_t n = libusb_get_device_list(ctx->lusb, &list);
	if (n < 0)
		return usb_errno((int)n);
	int ret = 0;
	for (ssize_t i = 0; i < n && !ret; i++) {
		uint8_t ifs[8];
		unsigned nf = usb_video_functions(list[i], ifs, 8);
		struct usb_camera_id id;
		if (!nf || usb_build_id(list[i], &id) < 0)
			continue;
		for (unsigned f = 0; f < nf && !ret; f++) {
			id.control_interface = ifs[f];
			ret = cb(data, &id, NULL, NULL);
		}
	}
	libusb_free_device_list(list, 1);
	return ret;
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
		unsigned nf = usb_video_functions(list[i], ifs, 8);
		if (!nf)
			continue;
		struct usb_camera_id id;
		if (usb_build_id(list[i], &id) < 0)
			continue;
		uint8_t *desc = NULL;
		size_t len = 0;
		int r = usb_sysfs_config(id.port_path, &desc, &len);
		libusb_device_handle *h = NULL;
		if (r < 0 && libusb_open(list[i], &h) == 0) {
			r = usb_device_config(h, &desc, &len);
			usb_fill_strings(h, &id);
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

int usb_claim_interfaces(struct usb_camera *cam, char *err, size_t errlen)
{
	int r = claim(cam, cam->model->control_interface, err, errlen);
	for (unsigned i = 0; r == 0 && i < cam->model->n_streams; i++)
		r = claim(cam, cam->model->streams[i].interface, err, errlen);
	return r;
}

/* Streams first, then VideoControl: a kernel driver given the VideoControl
 * interface back (uvcvideo) claims the streaming interfaces, which must be
 * free by then. */
void usb_release_interfaces(struct usb_camera *cam)
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

/* libusb_close leaves a wrapped handle's file open. */
void usb_close_handle(struct usb_camera *cam)
{
	if (cam->handle)
		libusb_close(cam->handle);
	cam->handle = NULL;
	if (cam->wrapped_fd >= 0)
		close(cam->wrapped_fd);
	cam->wrapped_fd = -1;
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
	usb_fill_strings(cam->handle, &cam->id);
	uint8_t *desc = NULL;
	size_t len = 0;
	r = usb_device_config(cam->handle, &desc, &len);
	if (r < 0) {
		log_warn("%s: GET_DESCRIPTOR(configuration) failed (%s), using sysfs's copy",
			id->port_path, strerror(-r));
		r = usb_sysfs_config(id->port_path, &desc, &len);
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
	usb_read_string(cam->handle, cam->id.function_index, cam->id.function,
			sizeof(cam->id.function));
	/* the input terminals' names, which ENUMINPUT shows */
	for (unsigned i = 0; i < cam->model->n_entities; i++) {
		struct uvc_entity *e = &cam->model->entities[i];
		if (e->kind == UVC_ENTITY_INPUT_TERMINAL)
			usb_read_string(cam->handle, e->string_index, e->name, sizeof(e->name));
	}
	r = usb_claim_interfaces(cam, err, errlen);
	if (r < 0)
		goto fail;
	usb_ctx_add_camera(ctx, cam);
	*out = cam;
	return 0;
fail:
	usb_release_interfaces(cam);
	usb_close_handle(cam);
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
		if (usb_build_id(list[i], &id) < 0)
			continue;
		if (match->serial && !id.serial[0]) {
			/* no sysfs attribute: ask the device */
			libusb_device_handle *h;
			if (libusb_open(list[i], &h) == 0) {
				usb_fill_strings(h, &id);
				libusb_close(h);
			}
		}
		if (!usb_match_id(match, &id))
			continue;
		uint8_t ifs[8];
		if (!usb_video_functions(list[i], ifs, 8)) {
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
	usb_release_interfaces(cam);
	usb_close_handle(cam);
	uvc_camera_free(cam->model);
	free(cam->config);
	free(cam);
}

bool usb_camera_gone(const struct usb_camera *cam)
{
	return cam->gone;
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
