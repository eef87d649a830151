/* SPDX-License-Identifier: GPL-2.0-or-later */
/* UVC payload headers and frame assembly (src/uvc/payload.c), isochronous
 * and bulk, as the stream engine feeds them.
 *
 * Input: a mode byte (bit 0 bulk, bit 1 drop_errors, bit 2 an expected
 * frame size follows, bit 3 give a buffer back at each frame as device.c
 * does), the buffer capacity (u16), then records of a u16 each: bit 15
 * clear is a packet/URB of the low 14 bits' length (bit 14: bulk
 * transfer_end) whose bytes follow; bit 15 set is an action (bit 13: an
 * isochronous packet lost on the bus; else the low bits: 0 give a buffer,
 * 1 reset, 2 no buffer, 3 a new expected size); at most 512 records. */
#include "fuzz.h"
#include "uvc/payload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define POOL 3

struct harness {
	struct uvc_assembler a;
	uint8_t *pool[POOL];
	size_t cap;
	bool give_back;
	uint64_t delivered;
	bool have_seq;
	uint64_t last_seq;
};

static bool in_pool(const struct harness *h, const uint8_t *buf)
{
	for (unsigned i = 0; i < POOL; i++)
		if (h->pool[i] == buf)
			return true;
	return false;
}

/* A pool buffer the assembler holds neither as spare nor for a frame. */
static void give(struct harness *h)
{
	for (unsigned i = 0; i < POOL; i++) {
		uint8_t *b = h->pool[i];
		if (b == h->a.spare || (h->a.frame.active && b == h->a.frame.buf))
			continue;
		uvc_assembler_set_buffer(&h->a, b, h->cap);
		return;
	}
}

static void on_frame(void *opaque, const struct uvc_frame_event *ev)
{
	struct harness *h = opaque;
	h->delivered++;
	FUZZ_CHECK(in_pool(h, ev->buf));
	FUZZ_CHECK(ev->cap == h->cap);
	FUZZ_CHECK(ev->bytesused <= ev->cap);
	FUZZ_CHECK(ev->error == ((ev->flags & UVC_ASM_ERR_MASK) != 0));
	FUZZ_CHECK(!(ev->flags & ~(UVC_ASM_ERR_MASK | UVC_ASM_NO_EOF | UVC_ASM_DROPPED)));
	if (ev->flags & UVC_ASM_DROPPED) {
		FUZZ_CHECK(h->a.drop_errors);
		FUZZ_CHECK(ev->bytesused == 0);
	} else if (h->a.drop_errors) {
		FUZZ_CHECK(!ev->error);
	}
	/* uncompressed: a frame of another size is errored */
	if (h->a.expected && !ev->error && !(ev->flags & UVC_ASM_DROPPED))
		FUZZ_CHECK(ev->bytesused == h->a.expected);
	if (h->have_seq)
		FUZZ_CHECK(ev->sequence > h->last_seq);
	h->have_seq = true;
	h->last_seq = ev->sequence;
	if (h->give_back)
		give(h);
}

static void check_header(const uint8_t *p, size_t len)
{
	struct uvc_payload_header hdr;
	int r = uvc_payload_parse(p, len, &hdr);
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r)
		return;
	FUZZ_CHECK(hdr.length >= 2 && hdr.length <= len);
	FUZZ_CHECK(hdr.length == p[0] && hdr.info == p[1]);
	size_t need = 2 + (hdr.has_pts ? 4 : 0) + (hdr.has_scr ? 6 : 0);
	FUZZ_CHECK(hdr.length >= need);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	uint8_t mode = fuzz_u8(&in);
	bool bulk = mode & 1;
	struct harness *h = calloc(1, sizeof(*h));
	FUZZ_CHECK(h);
	h->cap = fuzz_u16(&in);
	h->give_back = mode & 8;
	for (unsigned i = 0; i < POOL; i++) {
		/* exactly cap bytes: ASan sees overruns; not zeroed (the
		 * assembler writes before anything reads, and zeroing 192 KiB
		 * per run halved the speed) */
		h->pool[i] = malloc(h->cap ? h->cap : 1);
		FUZZ_CHECK(h->pool[i]);
	}
	uvc_assembler_init(&h->a, on_frame, h);
	h->a.drop_errors = mode & 2;
	if (mode & 4)
		uvc_assembler_set_expected(&h->a, fuzz_u16(&in));
	give(h);

	/* records beyond a few hundred only slow the runs down */
	for (unsigned records = 0; in.n && records < 512; records++) {
		uint16_t rec = fuzz_u16(&in);
		if (rec & 0x8000) {
			if (rec & 0x2000) {
				uvc_assembler_packet_lost(&h->a);
				continue;
			}
			switch (rec & 3) {
			case 0:
				give(h);
				break;
			case 1:
				uvc_assembler_reset(&h->a);
				h->have_seq = false;
				break;
			case 2:
				uvc_assembler_set_buffer(&h->a, NULL, 0);
				break;
			default:
				uvc_assembler_set_expected(&h->a, fuzz_u16(&in));
				break;
			}
			continue;
		}
		const uint8_t *src;
		size_t len = fuzz_take(&in, rec & 0x3fff, &src);
		uint8_t *pkt = fuzz_dup(src, len);
		uint64_t before = h->a.stats.payloads + h->a.stats.payloads_invalid;
		int r;
		if (bulk) {
			r = uvc_assembler_bulk(&h->a, pkt, len, rec & 0x4000);
			FUZZ_CHECK(r == 0 || r == -EINVAL);
		} else {
			check_header(pkt, len);
			struct uvc_payload_header hdr;
			int want = len && uvc_payload_parse(pkt, len, &hdr) ? -EINVAL : 0;
			r = uvc_assembler_packet(&h->a, pkt, len);
			FUZZ_CHECK(r == want);
			/* every non-empty packet is one payload, valid or not */
			FUZZ_CHECK(h->a.stats.payloads + h->a.stats.payloads_invalid ==
				   before + (len != 0));
		}
		free(pkt);
		FUZZ_CHECK(h->a.stats.frames_delivered == h->delivered);
		if (h->a.frame.active && h->a.frame.buf)
			FUZZ_CHECK(h->a.frame.bytes <= h->a.frame.cap);
	}
	for (unsigned i = 0; i < POOL; i++)
		free(h->pool[i]);
	free(h);
	return 0;
}
