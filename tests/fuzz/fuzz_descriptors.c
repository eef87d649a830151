/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The UVC descriptor parser (src/uvc/descriptors.c) on any configuration
 * descriptor, and what the node (src/v4l2/) builds from a camera it
 * accepts: formats, frame sizes and intervals, controls. */
#include "fake_camera.h"
#include "uvc/descriptors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_model(const struct uvc_camera *cam)
{
	FUZZ_CHECK(cam->n_streams >= 1 && cam->streams);
	for (unsigned i = 0; i < cam->n_entities; i++) {
		const struct uvc_entity *e = &cam->entities[i];
		FUZZ_CHECK(!e->n_sources || e->sources);
		FUZZ_CHECK(!e->control_size || e->controls);
		FUZZ_CHECK(uvc_camera_find_entity(cam, e->id) != NULL);
		for (unsigned bit = 0; bit < 8u * e->control_size + 8; bit++)
			(void)uvc_entity_has_control(e, bit);
	}
	for (unsigned s = 0; s < cam->n_streams; s++) {
		const struct uvc_streaming *vs = &cam->streams[s];
		FUZZ_CHECK(!vs->n_alts || vs->alts);
		FUZZ_CHECK(!vs->n_formats || vs->formats);
		for (unsigned f = 0; f < vs->n_formats; f++) {
			const struct uvc_format *fmt = &vs->formats[f];
			FUZZ_CHECK(uvc_stream_find_format(vs, fmt->index) != NULL);
			FUZZ_CHECK(!fmt->n_frames || fmt->frames);
			FUZZ_CHECK(!fmt->n_stills || fmt->stills);
			for (unsigned k = 0; k < fmt->n_frames; k++) {
				const struct uvc_frame *fr = &fmt->frames[k];
				FUZZ_CHECK(uvc_format_find_frame(fmt, fr->index) != NULL);
				FUZZ_CHECK(fr->continuous || !fr->n_intervals || fr->intervals);
			}
		}
	}
	FUZZ_CHECK(uvc_format_find_frame(NULL, 1) == NULL);
}

/* Every enumeration an app makes at start-up, over the first format and
 * frame as the start-up probe would give them. */
static void enumerate(const struct uvc_camera *cam)
{
	const struct uvc_streaming *vs = &cam->streams[0];
	struct uvc_probe probe = { .format_index = 1, .frame_index = 1, .interval = 333333 };
	if (vs->n_formats) {
		probe.format_index = vs->formats[0].index;
		if (vs->formats[0].n_frames)
			probe.frame_index = vs->formats[0].frames[0].index;
	}
	struct fake fake = { 0 };
	struct node_identity id = fake_identity();
	struct node n;
	int r = node_init(&n, cam, &id, &probe, &fake_ops, &fake, &fake_mem, NULL);
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r)
		return;
	struct node_file f;
	node_open(&n, &f);
	for (unsigned i = 0; i < 64; i++) {
		struct v4l2_fmtdesc d = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		r = node_ioctl(&n, &f, VIDIOC_ENUM_FMT, &d, NULL, 0, true, NULL, NULL);
		FUZZ_CHECK_ERRNO(r);
		if (r)
			break;
		FUZZ_CHECK(strnlen((char *)d.description, sizeof(d.description)) <
			   sizeof(d.description));
		for (unsigned j = 0; j < 64; j++) {
			struct v4l2_frmsizeenum fs = { .index = j, .pixel_format = d.pixelformat };
			r = node_ioctl(&n, &f, VIDIOC_ENUM_FRAMESIZES, &fs, NULL, 0, true, NULL,
				       NULL);
			FUZZ_CHECK_ERRNO(r);
			if (r || fs.type != V4L2_FRMSIZE_TYPE_DISCRETE)
				break;
			for (unsigned k = 0; k < 64; k++) {
				struct v4l2_frmivalenum fi = { .index = k,
							       .pixel_format = d.pixelformat,
							       .width = fs.discrete.width,
							       .height = fs.discrete.height };
				r = node_ioctl(&n, &f, VIDIOC_ENUM_FRAMEINTERVALS, &fi, NULL, 0,
					       true, NULL, NULL);
				FUZZ_CHECK_ERRNO(r);
				if (r || fi.type != V4L2_FRMIVAL_TYPE_DISCRETE)
					break;
			}
		}
	}
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	FUZZ_CHECK(node_ioctl(&n, &f, VIDIOC_G_FMT, &fmt, NULL, 0, true, NULL, NULL) == 0);
	r = node_ioctl(&n, &f, VIDIOC_TRY_FMT, &fmt, NULL, 0, true, NULL, NULL);
	FUZZ_CHECK_ERRNO(r);
	struct v4l2_query_ext_ctrl q = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };
	for (unsigned i = 0; i < 256; i++) {
		r = node_ioctl(&n, &f, VIDIOC_QUERY_EXT_CTRL, &q, NULL, 0, true, NULL, NULL);
		FUZZ_CHECK_ERRNO(r);
		if (r)
			break;
		q.id |= V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND;
	}
	node_release(&n, &f);
	node_destroy(&n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uvc_camera *cam = (struct uvc_camera *)1;
	struct uvc_parse_status st;
	int r = uvc_parse_descriptors(data, size, &cam, &st);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	FUZZ_CHECK(strnlen(st.error, sizeof(st.error)) < sizeof(st.error));
	FUZZ_CHECK(strnlen(st.warning, sizeof(st.warning)) < sizeof(st.warning));
	if (r) {
		FUZZ_CHECK(cam == NULL);
		FUZZ_CHECK(r != -EINVAL || st.error[0]);
		return 0;
	}
	FUZZ_CHECK(cam != NULL);
	check_model(cam);

	/* The same function picked by its interface number. */
	struct uvc_camera *again = NULL;
	r = uvc_parse_function(data, size, cam->control_interface, &again, NULL);
	FUZZ_CHECK(r == 0 || r == -ENOMEM);
	if (again) {
		FUZZ_CHECK(again->n_streams == cam->n_streams);
		FUZZ_CHECK(again->n_entities == cam->n_entities);
		uvc_camera_free(again);
	}
	enumerate(cam);
	uvc_camera_free(cam);
	return 0;
}
