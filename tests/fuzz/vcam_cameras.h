/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The camera models the daemon's parser makes of every vcam profile, for
 * the targets that need a sound camera under what they fuzz. Parsed once
 * and kept (reachable at exit: not a leak). */
#ifndef UVCUSE_FUZZ_VCAM_CAMERAS_H
#define UVCUSE_FUZZ_VCAM_CAMERAS_H

#include "descriptors.h" /* tests/vcam */
#include "fuzz.h"
#include "profile.h"
#include "uvc/descriptors.h"

#define VCAM_CAMERAS_MAX 16

/* The camera of profile index % count. */
static inline const struct uvc_camera *vcam_camera(uint8_t index)
{
	static struct uvc_camera *cameras[VCAM_CAMERAS_MAX];
	static size_t count;
	static const uint8_t guid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	if (!count) {
		for (size_t i = 0; i < vcam_profile_count && i < VCAM_CAMERAS_MAX; i++) {
			struct vcam_identity id = { .profile = &vcam_profiles[i], .serial = "SN",
						    .ct_controls = 0x02000e, .pu_controls = 0x00175f,
						    .xu_controls = 0x000f, .xu_count = 4,
						    .xu_guid = guid };
			uint8_t buf[4096];
			ssize_t len = vcam_config_descriptor(&id, buf, sizeof(buf));
			FUZZ_CHECK(len > 0);
			FUZZ_CHECK(uvc_parse_descriptors(buf, (size_t)len, &cameras[i], NULL) == 0);
		}
		count = vcam_profile_count < VCAM_CAMERAS_MAX ? vcam_profile_count : VCAM_CAMERAS_MAX;
	}
	return cameras[index % count];
}

#endif
