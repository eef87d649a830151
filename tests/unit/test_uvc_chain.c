/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcvideo 6.1's chain scan (src/uvc/chain.c) on the synthetic cameras of
 * tests/topologies/ (each breaks the topology as real firmware does), and
 * on every corpus camera: which entities each chain holds, in which
 * order, and the controls the node builds from it. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>

#include "uvc/chain.h"
#include "v4l2/controls.h"

#include "unit_run.h"

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	uint8_t *buf = malloc(1 << 16);
	ck_assert_ptr_nonnull(buf);
	*len = fread(buf, 1, 1 << 16, f);
	fclose(f);
	return buf;
}

/* The synthetic camera NAME (tests/topologies/f0f0_*_topology_NAME). */
static struct uvc_camera *topology(const char *name, struct uvc_parse_status *st)
{
	static const char *const order[] = { "dangling_source", "duplicate_unit",
					     "duplicate_xu_ot", "encoding_unit", "selector",
					     "selector_broken", "two_pus", "unit_source_nowhere",
					     "xu_from_ot", "xu_two_inputs", "zero_id" };
	const char *dir = getenv("TOPOLOGY_DIR");
	char path[4096];
	unsigned k = 0;

	ck_assert_msg(dir != NULL, "TOPOLOGY_DIR is not set");
	while (k < sizeof(order) / sizeof(order[0]) && strcmp(order[k], name))
		k++;
	ck_assert_uint_lt(k, sizeof(order) / sizeof(order[0]));
	snprintf(path, sizeof(path), "%s/f0f0_%04x_topology_%s.cfg.bin", dir, k + 1, name);
	size_t len;
	uint8_t *buf = read_all(path, &len);
	struct uvc_camera *cam = NULL;
	ck_assert_int_eq(uvc_parse_descriptors(buf, len, &cam, st), 0);
	free(buf);
	return cam;
}

/* The chain as "kind/id kind/id ...": T input terminal, O output terminal,
 * S selector, P processing, X extension unit. */
static const char *spell(const struct uvc_camera *cam, const struct uvc_chain *c)
{
	static char out[512];
	size_t at = 0;

	out[0] = 0;
	for (unsigned k = 0; k < c->n && at < sizeof(out) - 8; k++) {
		const struct uvc_entity *e = uvc_chain_entity(cam, c, k);
		at += (size_t)snprintf(out + at, sizeof(out) - at, "%s%c%u", k ? " " : "",
				       "TOSPXE"[e->kind], e->id);
	}
	return out;
}

static void expect_chain(const char *name, bool fallback, const char *entities)
{
	struct uvc_parse_status st;
	struct uvc_camera *cam = topology(name, &st);
	struct uvc_chains chains;

	ck_assert_int_eq(uvc_chains_scan(cam, &chains), 1);
	ck_assert_msg(chains.chain[0].fallback == fallback, "%s: fallback %d", name,
		      chains.chain[0].fallback);
	ck_assert_str_eq(spell(cam, &chains.chain[0]), entities);
	uvc_camera_free(cam);
}

START_TEST(output_terminal_source_names_nothing_falls_back)
{
	/* the fallback: units from the last in descriptor order to the first */
	expect_chain("dangling_source", true, "O3 X4 P2 T1");
}
END_TEST

START_TEST(unit_source_names_nothing_falls_back)
{
	expect_chain("unit_source_nowhere", true, "O4 X3 P2 T1");
}
END_TEST

START_TEST(extension_unit_with_two_inputs_falls_back_without_it)
{
	expect_chain("xu_two_inputs", true, "O4 P2 T1");
}
END_TEST

/* uvcvideo moves the unit to the terminal's source, then finds it there
 * again from the processing unit ("already in chain"): the fallback. */
START_TEST(extension_unit_fed_by_the_output_terminal_falls_back)
{
	expect_chain("xu_from_ot", true, "O3 X4 P2 T1");
}
END_TEST

/* 6.1 parses no encoding unit: the terminal's source is unknown. */
START_TEST(encoding_unit_is_not_there)
{
	expect_chain("encoding_unit", true, "O4 P2 T1");
}
END_TEST

START_TEST(selector_unit_ends_the_chain_with_its_inputs)
{
	struct uvc_parse_status st;
	struct uvc_camera *cam = topology("selector", &st);
	struct uvc_chains chains;

	ck_assert_int_eq(uvc_chains_scan(cam, &chains), 1);
	ck_assert_str_eq(spell(cam, &chains.chain[0]), "O5 P4 S3 T1 T2");
	ck_assert_int_ge(chains.chain[0].selector, 0);
	ck_assert_uint_eq(cam->entities[chains.chain[0].selector].id, 3);
	ck_assert_uint_eq(uvc_chain_first_input(cam, &chains.chain[0])->id, 1);
	ck_assert_uint_eq(uvc_chain_input_by_id(cam, &chains.chain[0], 2)->type,
			  UVC_ITT_MEDIA_TRANSPORT_INPUT);
	ck_assert_ptr_null(uvc_chain_input_by_id(cam, &chains.chain[0], 3));
	uvc_camera_free(cam);
}
END_TEST

/* No chain, and no fallback (two input terminals; two processing units):
 * uvcvideo does not bind these. */
START_TEST(broken_beyond_the_fallback_has_no_chain)
{
	static const char *const names[] = { "selector_broken", "two_pus" };

	for (unsigned k = 0; k < 2; k++) {
		struct uvc_parse_status st;
		struct uvc_camera *cam = topology(names[k], &st);
		struct uvc_chains chains;

		ck_assert_int_eq(uvc_chains_scan(cam, &chains), 0);
		uvc_camera_free(cam);
	}
}
END_TEST

/* Accepted with a warning, as 6.1 accepts them; an ID names the first. */
START_TEST(duplicate_ids_are_served)
{
	struct uvc_parse_status st;
	struct uvc_camera *cam = topology("duplicate_xu_ot", &st);

	ck_assert_ptr_nonnull(strstr(st.warning, "duplicate ID"));
	ck_assert_int_eq(uvc_camera_find_entity(cam, 4)->kind, UVC_ENTITY_EXTENSION_UNIT);
	uvc_camera_free(cam);
	/* the terminal fed by "4" finds itself: dropped, the fallback serves */
	expect_chain("duplicate_xu_ot", true, "O4 X4 P3 T1");
	/* two extension units numbered 5 both join from the processing unit */
	expect_chain("duplicate_unit", false, "O3 P2 X5 X5 T1");
}
END_TEST

/* ID 0: a source of 0 ends the chain, which holds no input terminal. */
START_TEST(zero_id_ends_the_chain)
{
	struct uvc_parse_status st;
	struct uvc_camera *cam = topology("zero_id", &st);
	struct uvc_chains chains;

	ck_assert_ptr_nonnull(strstr(st.warning, "entity ID 0"));
	ck_assert_int_eq(uvc_chains_scan(cam, &chains), 1);
	ck_assert_str_eq(spell(cam, &chains.chain[0]), "O3 P2");
	ck_assert_ptr_null(uvc_chain_first_input(cam, &chains.chain[0]));
	uvc_camera_free(cam);
}
END_TEST

static unsigned count_controls(const char *name, uint8_t entity)
{
	struct uvc_parse_status st;
	struct uvc_camera *cam = topology(name, &st);
	static struct ctrls c;
	unsigned n = 0;

	ck_assert_int_eq(ctrls_init(&c, cam), 0);
	for (unsigned i = 0; i < c.n_uvc; i++)
		n += c.uvc[i].entity == entity;
	uvc_camera_free(cam);
	return n;
}

/* The fallback chain's units carry their controls, as with uvcvideo (the
 * camera terminal has 5 of uvcvideo's, the processing unit 8). */
START_TEST(fallback_chain_has_the_controls)
{
	ck_assert_uint_eq(count_controls("dangling_source", 1), 5);
	ck_assert_uint_eq(count_controls("dangling_source", 2), 8);
	ck_assert_uint_eq(count_controls("duplicate_xu_ot", 3), 8);
	ck_assert_uint_eq(count_controls("zero_id", 2), 8);
	ck_assert_uint_eq(count_controls("zero_id", 0), 0);
	ck_assert_uint_eq(count_controls("two_pus", 2), 0);
}
END_TEST

/* Every corpus camera uvcuse parses has one chain, found without the
 * fallback, holding the terminal its first streaming interface links. */
START_TEST(corpus_cameras_have_their_chain)
{
	const char *dir = getenv("UVC_CORPUS_DIR");
	unsigned seen = 0;
	struct dirent *de;

	ck_assert_msg(dir != NULL, "UVC_CORPUS_DIR is not set");
	DIR *dp = opendir(dir);
	ck_assert_msg(dp != NULL, "corpus %s: %s", dir, strerror(errno));
	while ((de = readdir(dp))) {
		const char *name = de->d_name;
		if (!strstr(name, ".cfg.bin"))
			continue;
		char path[5000];
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		size_t len;
		uint8_t *buf = read_all(path, &len);
		struct uvc_camera *cam = NULL;
		struct uvc_chains chains;
		if (uvc_parse_descriptors(buf, len, &cam, NULL) == 0) {
			ck_assert_msg(uvc_chains_scan(cam, &chains) == 1, "%s", name);
			ck_assert_msg(!chains.chain[0].fallback, "%s", name);
			ck_assert_msg(uvc_chains_find_terminal(&chains, cam,
							       cam->streams[0].terminal_link),
				      "%s", name);
			seen++;
			uvc_camera_free(cam);
		}
		free(buf);
	}
	closedir(dp);
	ck_assert_uint_eq(seen, 70);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("uvc-chain");
	TCase *tc = tcase_create("chain");
	tcase_add_test(tc, output_terminal_source_names_nothing_falls_back);
	tcase_add_test(tc, unit_source_names_nothing_falls_back);
	tcase_add_test(tc, extension_unit_with_two_inputs_falls_back_without_it);
	tcase_add_test(tc, extension_unit_fed_by_the_output_terminal_falls_back);
	tcase_add_test(tc, encoding_unit_is_not_there);
	tcase_add_test(tc, selector_unit_ends_the_chain_with_its_inputs);
	tcase_add_test(tc, broken_beyond_the_fallback_has_no_chain);
	tcase_add_test(tc, duplicate_ids_are_served);
	tcase_add_test(tc, zero_id_ends_the_chain);
	tcase_add_test(tc, fallback_chain_has_the_controls);
	tcase_add_test(tc, corpus_cameras_have_their_chain);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
