/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A virtual camera identity with known control bitmaps and XU GUID, for the
 * tests that build (and then parse) the vcam's descriptors. */
#ifndef VCAM_FIXTURE_H
#define VCAM_FIXTURE_H

#include <check.h>
#include <stdint.h>
#include <sys/types.h>

#include "controls.h"
#include "descriptors.h"
#include "profile.h"
#include "uvc/descriptors.h"

static const uint8_t test_guid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static inline struct vcam_identity test_identity(const struct vcam_profile *p)
{
	struct vcam_identity id = {
		.profile = p,
		.serial = "SN42",
		.ct_controls = 0x02000e,
		.pu_controls = 0x00175f,
		.xu_controls = 0x000f,
		.xu_count = 4,
		.xu_guid = test_guid,
	};
	return id;
}

/* The camera model the daemon's parser makes of a profile's descriptors
 * (one streaming interface). Free it with uvc_camera_free(). */
static inline struct uvc_camera *fixture_camera(const struct vcam_profile *p)
{
	struct vcam_identity id = test_identity(p);
	uint8_t buf[4096];
	ssize_t len = vcam_config_descriptor(&id, buf, sizeof(buf));
	ck_assert_int_gt(len, 0);
	struct uvc_camera *cam = NULL;
	struct uvc_parse_status st;
	ck_assert_int_eq(uvc_parse_descriptors(buf, (size_t)len, &cam, &st), 0);
	ck_assert_uint_eq(cam->n_streams, 1);
	return cam;
}

/* The camera model of a profile whose descriptors announce the controls of
 * vc (the vcam's own control model), as the daemon parses it. Free it with
 * uvc_camera_free(). */
static inline struct uvc_camera *fixture_camera_with(const struct vcam_profile *p,
						     const struct vcam_controls *vc)
{
	struct vcam_identity id = {
		.profile = p,
		.serial = "SN42",
		.ct_controls = vcam_controls_bitmap(vc, VCAM_ENTITY_CAMERA),
		.pu_controls = vcam_controls_bitmap(vc, VCAM_ENTITY_PROCESSING),
		.xu_controls = vcam_controls_bitmap(vc, VCAM_ENTITY_EXTENSION),
		.xu_count = (uint8_t)vcam_controls_xu_count(vc),
		.xu_guid = vcam_xu_guid,
	};
	uint8_t buf[4096];
	ssize_t len = vcam_config_descriptor(&id, buf, sizeof(buf));
	ck_assert_int_gt(len, 0);
	struct uvc_camera *cam = NULL;
	ck_assert_int_eq(uvc_parse_descriptors(buf, (size_t)len, &cam, NULL), 0);
	return cam;
}

#endif
