/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The node's video inputs as uvcvideo 6.1 answers them (uvc_v4l2.c:
 * uvc_ioctl_enum_input, _g_input, _s_input): the input terminals of the
 * chain (uvc/chain.h). With a selector unit of several inputs, input N is
 * the terminal on its pin N, read and chosen with GET_CUR/SET_CUR of the
 * unit's input select control (pin + 1); without one, or with the
 * IGNORE_SELECTOR_UNIT quirk, input 0 is the chain's first input terminal
 * and nothing goes to the camera. */
#include "v4l2/node.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/usb/video.h>

#include "uvc/quirks.h"
#include "v4l2/node_priv.h"

/* The selector unit the inputs go through, or NULL. An empty chain has
 * none, whatever its selector field says: the controls zeroed when they
 * could not be built leave 0 there, not -1. */
static const struct uvc_entity *selector(const struct node *n)
{
	const struct uvc_chain *chain = &n->ctrls.chain;

	if (!chain->n || chain->selector < 0 ||
	    (n->camera->quirks & UVC_QUIRK_IGNORE_SELECTOR_UNIT))
		return NULL;
	return &n->camera->entities[chain->selector];
}

static const struct uvc_entity *input_terminal(const struct node *n, uint32_t index)
{
	const struct uvc_entity *su = selector(n);

	if (!su)
		return index == 0 ? uvc_chain_first_input(n->camera, &n->ctrls.chain) : NULL;
	if (index >= su->n_sources)
		return NULL;
	return uvc_chain_input_by_id(n->camera, &n->ctrls.chain, su->sources[index]);
}

int node_enum_input(struct node *n, struct v4l2_input *in)
{
	uint32_t index = in->index;
	const struct uvc_entity *it = input_terminal(n, index);

	if (!it)
		return -EINVAL;
	memset(in, 0, sizeof(*in));
	in->index = index;
	/* the terminal's string; without one, "Camera N", "Media N" (a media
	 * transport input) or "Input N", as uvcvideo 6.12 and later name
	 * them (6.1 overwrote a camera's "Camera N" with "Input N": an else
	 * missing in uvc_parse_standard_control; tests/e2e/cameras.sh names
	 * the difference against that referee) */
	if (it->name[0]) /* cut to the field, as strscpy */
		memcpy(in->name, it->name, strnlen(it->name, sizeof(in->name) - 1));
	else
		snprintf((char *)in->name, sizeof(in->name), "%s %u",
			 it->type == UVC_ITT_CAMERA		   ? "Camera"
			 : it->type == UVC_ITT_MEDIA_TRANSPORT_INPUT ? "Media"
								     : "Input",
			 it->id);
	if (it->type == UVC_ITT_CAMERA)
		in->type = V4L2_INPUT_TYPE_CAMERA;
	return 0;
}

static int select_request(struct node *n, const struct uvc_entity *su, uint8_t query,
			  uint8_t *pin)
{
	struct ctrls_request r = { .ctrl = CTRLS_XU_INIT, .entity = su->id,
				   .selector = UVC_SU_INPUT_SELECT_CONTROL, .query = query,
				   .size = 1 };
	int ret = node_ctrl_request(n, &r, pin);

	return ret < 0 ? ret : 0;
}

/* uvcvideo reports the camera's answer minus one, unchecked (0 comes back
 * as UINT_MAX). */
int node_g_input(struct node *n, unsigned *input)
{
	const struct uvc_entity *su = selector(n);
	uint8_t pin = 0;
	int ret;

	if (!su) {
		*input = 0;
		return 0;
	}
	ret = select_request(n, su, UVC_GET_CUR, &pin);
	if (ret)
		return ret;
	*input = (unsigned)pin - 1u;
	return 0;
}

/* 6.1 refuses while another file streams (uvc_acquire_privileges), 7.x
 * while the queue is busy: here while the camera streams for anyone. */
int node_s_input(struct node *n, unsigned input)
{
	const struct uvc_entity *su = selector(n);
	uint8_t pin;

	if (!su)
		return input == 0 ? 0 : -EINVAL;
	if (input >= su->n_sources)
		return -EINVAL;
	if (node_streaming(n))
		return -EBUSY;
	pin = (uint8_t)(input + 1);
	return select_request(n, su, UVC_SET_CUR, &pin);
}
