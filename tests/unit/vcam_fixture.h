/* A virtual camera identity with known control bitmaps and XU GUID, for the
 * tests that build (and then parse) the vcam's descriptors. */
#ifndef VCAM_FIXTURE_H
#define VCAM_FIXTURE_H

#include <stdint.h>

#include "descriptors.h"
#include "profile.h"

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

#endif
