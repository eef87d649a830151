/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `uvcuse --list` (see camera_list.h), as the node would enumerate each
 * camera's formats without conversion. */
#include "service/camera_list.h"

#include <stdio.h>
#include <string.h>

#include "core/json.h"
#include "core/log.h"
#include "usb/usb.h"
#include "v4l2/formats.h"

static void print_intervals(const struct uvc_streaming *s, uint32_t fourcc, unsigned w, unsigned h)
{
	struct v4l2_frmivalenum fi = { .pixel_format = fourcc, .width = w, .height = h };
	for (fi.index = 0; fmt_enum_frameintervals(s, &fi) == 0; fi.index++) {
		if (fi.type == V4L2_FRMIVAL_TYPE_DISCRETE) {
			printf(" %.3f", (double)fi.discrete.denominator / fi.discrete.numerator);
		} else {
			printf(" %.3f-%.3f", (double)fi.stepwise.max.denominator / fi.stepwise.max.numerator,
			       (double)fi.stepwise.min.denominator / fi.stepwise.min.numerator);
			break;
		}
	}
}

struct lister {
	unsigned count;
	bool json;
};

/* "name": "value" of a JSON object, escaped; after the first, a comma. */
static void json_pair(const char *name, const char *value, bool first)
{
	char esc[6 * 256 + 1];
	json_escape(esc, sizeof(esc), value);
	printf("%s\"%s\": \"%s\"", first ? "" : ", ", name, esc);
}

/* The rates of one size: [30.000, 15.000] (a stepwise range: its two ends). */
static void json_rates(const struct uvc_streaming *s, uint32_t fourcc, unsigned w, unsigned h)
{
	struct v4l2_frmivalenum fi = { .pixel_format = fourcc, .width = w, .height = h };
	printf("[");
	for (fi.index = 0; fmt_enum_frameintervals(s, &fi) == 0; fi.index++) {
		if (fi.type != V4L2_FRMIVAL_TYPE_DISCRETE) {
			printf("%.3f, %.3f", (double)fi.stepwise.max.denominator / fi.stepwise.max.numerator,
			       (double)fi.stepwise.min.denominator / fi.stepwise.min.numerator);
			break;
		}
		printf("%s%.3f", fi.index ? ", " : "",
		       (double)fi.discrete.denominator / fi.discrete.numerator);
	}
	printf("]");
}

/* One format of a stream: its fourcc, description, sizes and rates. */
static void json_format(const struct uvc_streaming *s, const struct v4l2_fmtdesc *fd, bool first)
{
	char fourcc[5] = { 0 };
	memcpy(fourcc, &fd->pixelformat, 4);
	printf("%s{", first ? "" : ", ");
	json_pair("fourcc", fourcc, true);
	json_pair("description", (const char *)fd->description, false);
	printf(", \"compressed\": %s, \"sizes\": [",
	       fd->flags & V4L2_FMT_FLAG_COMPRESSED ? "true" : "false");
	struct v4l2_frmsizeenum fs = { .pixel_format = fd->pixelformat };
	for (fs.index = 0; fmt_enum_framesizes(s, &fs) == 0; fs.index++) {
		printf("%s{\"width\": %u, \"height\": %u, \"fps\": ", fs.index ? ", " : "",
		       fs.discrete.width, fs.discrete.height);
		json_rates(s, fd->pixelformat, fs.discrete.width, fs.discrete.height);
		printf("}");
	}
	printf("]}");
}

static void json_camera(const struct lister *l, const struct usb_camera_id *id,
			const struct uvc_camera *model, const char *parse_error)
{
	char text[192];
	printf("%s{", l->count > 1 ? ",\n " : "");
	snprintf(text, sizeof(text), "%04x", id->vid);
	json_pair("vid", text, true);
	snprintf(text, sizeof(text), "%04x", id->pid);
	json_pair("pid", text, false);
	json_pair("bus_info", id->bus_info, false);
	json_pair("port", id->port_path, false);
	json_pair("product", id->product, false);
	json_pair("serial", id->serial, false);
	if (usb_camera_identity(id, text, sizeof(text)) == 0)
		json_pair("identity", text, false);
	if (!model)
		json_pair("error", parse_error ? parse_error : "?", false);
	printf(", \"formats\": [");
	unsigned n = 0;
	for (unsigned si = 0; model && si < model->n_streams; si++) {
		const struct uvc_streaming *s = &model->streams[si];
		struct v4l2_fmtdesc fd = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		for (fd.index = 0; fmt_enum(s, &fd) == 0; fd.index++)
			json_format(s, &fd, n++ == 0);
	}
	printf("]}");
}

static int list_one(void *data, const struct usb_camera_id *id, const struct uvc_camera *model,
		    const char *parse_error)
{
	struct lister *l = data;
	l->count++;
	if (l->json) {
		json_camera(l, id, model, parse_error);
		return 0;
	}
	printf("%04x:%04x %s (port %s) '%s'", id->vid, id->pid, id->bus_info, id->port_path,
	       id->product[0] ? id->product : "UVC Camera");
	if (id->serial[0])
		printf(" serial %s", id->serial);
	char identity[192];
	if (usb_camera_identity(id, identity, sizeof(identity)) == 0)
		printf(" identity %s", identity);
	printf("\n");
	if (!model) {
		printf("  descriptors do not parse: %s\n", parse_error ? parse_error : "?");
		return 0;
	}
	for (unsigned si = 0; si < model->n_streams; si++) {
		const struct uvc_streaming *s = &model->streams[si];
		struct v4l2_fmtdesc fd = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		for (fd.index = 0; fmt_enum(s, &fd) == 0; fd.index++) {
			printf("  %.4s '%s'%s\n", (const char *)&fd.pixelformat, fd.description,
			       fd.flags & V4L2_FMT_FLAG_COMPRESSED ? " (compressed)" : "");
			struct v4l2_frmsizeenum fs = { .pixel_format = fd.pixelformat };
			for (fs.index = 0; fmt_enum_framesizes(s, &fs) == 0; fs.index++) {
				printf("    %ux%u fps", fs.discrete.width, fs.discrete.height);
				print_intervals(s, fd.pixelformat, fs.discrete.width, fs.discrete.height);
				printf("\n");
			}
		}
	}
	return 0;
}

int camera_list_print(bool json)
{
	struct usb_ctx *usb;
	int err = usb_ctx_new(NULL, &usb);
	if (err) {
		log_error("cannot use libusb: %s", strerror(-err));
		return 1;
	}
	struct lister l = { .json = json };
	if (json)
		printf("[");
	usb_enumerate(usb, list_one, &l);
	usb_ctx_free(usb);
	if (json)
		printf("]\n");
	if (!l.count) {
		fprintf(stderr, "uvcuse: no UVC camera found\n");
		return 1;
	}
	return 0;
}

