/* SPDX-License-Identifier: GPL-2.0-or-later */
/* UVC payloads (UVC 1.5 section 2.4.3.3): header parsing and frame assembly.
 * Pure: the stream engine feeds payload bytes, the assembler writes frame
 * bytes into the buffer the caller provides and reports finished frames
 * through a callback. No I/O, no allocation.
 *
 * Frame assembly rules (those of Linux uvcvideo unless noted):
 *  - A payload is a header plus data. A frame starts with the first payload
 *    that carries data; header-only payloads never start a frame.
 *  - A frame ends at a payload with EOF, or when a payload (even a header-only
 *    one) arrives with the other FID: the previous frame is then complete
 *    without EOF and delivered (flag UVC_ASM_NO_EOF, not an error).
 *  - Sync: a new frame starts only on a FID different from the last one seen
 *    in a frame. Payloads of an already finished frame (e.g. header-only
 *    payloads between frames, or the rest of a frame that was cut short) are
 *    skipped until the FID toggles. The very first data payload after
 *    uvc_assembler_init()/uvc_assembler_reset() is accepted whatever its FID
 *    (as uvcvideo's last_fid = -1): waiting for a toggle would cost a whole
 *    frame at every stream start, and a camera starts at a frame boundary
 *    after commit; a partial first frame of an uncompressed format is caught
 *    by the size check below.
 *  - ERR in any payload of a frame marks it errored (UVC_ASM_ERR_DEVICE). ERR in
 *    a header-only payload that carries the next frame's FID before its data
 *    marks that next frame.
 *  - A packet the bus lost (an isochronous packet with an error status,
 *    uvc_assembler_packet_lost()) marks the frame in progress errored, or
 *    the next frame when none is in progress (UVC_ASM_ERR_LOST), as
 *    uvc_video_decode_isoc marks its current buffer.
 *  - An invalid header (uvc_payload_parse() fails) drops that payload; the
 *    frame in progress lost data and is marked errored (UVC_ASM_ERR_INVALID;
 *    uvcvideo silently skips it, which corrupts compressed frames).
 *  - Data beyond the buffer's capacity is dropped and the frame errored
 *    (UVC_ASM_ERR_OVERFLOW); the frame still ends at EOF/FID as usual.
 *  - With an expected size set (uncompressed formats: dwMaxVideoFrameSize), a
 *    frame whose size differs is errored (UVC_ASM_ERR_SIZE), as uvcvideo does.
 *  - Errored frames are delivered with their error flags (the V4L2 layer sets
 *    V4L2_BUF_FLAG_ERROR), or with drop_errors set they are dropped and their
 *    buffer kept as the spare for the next frame (if the caller already gave
 *    a spare, the frame is delivered flagged UVC_ASM_DROPPED, bytesused 0, so
 *    the caller can requeue that buffer).
 *  - Buffers: the assembler holds one spare buffer (uvc_assembler_set_buffer)
 *    and a frame takes it when it starts. The spare may come with a mirror
 *    (uvc_assembler_set_mirror): the frame that takes it writes its data
 *    into both, straight from the payloads, so that a second reader gets
 *    the frame from memory only the caller writes (our own: several
 *    processes on one camera). A frame that starts with no spare
 *    buffer has its data discarded (FID/EOF tracking goes on) and is counted
 *    in stats.frames_no_buffer, never delivered; a buffer given in the middle
 *    of that frame waits for the next one.
 *  - The frame sequence counts every frame started, delivered or not, so gaps
 *    show lost frames (as uvcvideo's sequence).
 *  - PTS: from the frame's first payload that has one. SCR: from its last
 *    payload that has one.
 *
 * Bulk: the caller says where payload transfers end (transfer_end: a short
 * transfer, a zero-length packet, or dwMaxPayloadTransferSize bytes reached),
 * since the stream engine knows its URB size and the committed max payload.
 * The header may span calls. */
#ifndef UVC_PAYLOAD_H
#define UVC_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uvc_payload_header {
	uint8_t length;     /* bHeaderLength: data starts there */
	uint8_t info;       /* bmHeaderInfo, raw (UVC_STREAM_* bits) */
	bool fid, eof, has_pts, has_scr, res, still, error, eoh;
	uint32_t pts;       /* dwPresentationTime, when has_pts */
	uint32_t scr_stc;   /* scrSourceClock: STC, when has_scr */
	uint16_t scr_sof;   /* scrSourceClock: 11-bit USB frame number */
};

/* Parses the header at the start of one payload of len bytes. Returns 0, or
 * -EINVAL when the header lies: len < 2, bHeaderLength < 2 or > len (the
 * checks of uvcvideo's uvc_video_decode_start). A header too short for the
 * PTS (4 bytes) and SCR (6 bytes) its flags announce is taken, without
 * them (has_pts, has_scr false): uvcvideo takes such payloads, and a real
 * camera sends them (corpus/streams, 0bda:5602). Bytes beyond those fields
 * (bHeaderLength larger than needed) are allowed. */
int uvc_payload_parse(const uint8_t *data, size_t len, struct uvc_payload_header *out);

/* Frame flags. The UVC_ASM_ERR_* ones make a frame errored. */
#define UVC_ASM_ERR_DEVICE   (1u << 0) /* a payload had ERR */
#define UVC_ASM_ERR_OVERFLOW (1u << 1) /* more data than the buffer holds */
#define UVC_ASM_ERR_SIZE     (1u << 2) /* size differs from the expected one */
#define UVC_ASM_ERR_INVALID  (1u << 3) /* a payload with a bad header was lost */
#define UVC_ASM_ERR_LOST     (1u << 4) /* a packet was lost on the bus */
#define UVC_ASM_ERR_MASK     0x1fu
#define UVC_ASM_NO_EOF       (1u << 8) /* ended by a FID toggle */
#define UVC_ASM_DROPPED      (1u << 9) /* drop_errors: buffer handed back unused */

struct uvc_frame_event {
	uint8_t *buf;        /* the buffer given with uvc_assembler_set_buffer */
	size_t cap;
	size_t bytesused;
	uint8_t *mirror;     /* its mirror (uvc_assembler_set_mirror), or NULL */
	size_t mirror_bytes; /* the frame's bytes there: bytesused, or fewer
			      * when the mirror was smaller (cut) */
	uint32_t flags;      /* UVC_ASM_* */
	bool error;          /* flags & UVC_ASM_ERR_MASK */
	bool fid;
	bool has_pts, has_scr;
	uint32_t pts, scr_stc;
	uint16_t scr_sof;
	uint64_t sequence;   /* 0 for the first frame after init/reset */
	uint64_t start_ns;   /* the caller's now_ns when the frame's first
			      * payload came (its start of exposure, as near as
			      * the host knows it); 0: never set */
};

/* An SCR sample: the camera's clock (its source time clock) in the last
 * payload of a transfer that carried one, and the caller's now_ns when
 * that transfer arrived. */
struct uvc_scr_sample {
	uint32_t stc;
	uint64_t host_ns;
};
#define UVC_ASM_SCR_SAMPLES 32

/* Called for each finished frame; may call uvc_assembler_set_buffer(). */
typedef void (*uvc_frame_cb)(void *opaque, const struct uvc_frame_event *ev);

struct uvc_assembler_stats {
	uint64_t payloads;          /* valid payloads seen */
	uint64_t payloads_invalid;  /* bad headers */
	uint64_t packets_lost;      /* uvc_assembler_packet_lost() */
	uint64_t payloads_skipped;  /* out of sync: data of a finished frame */
	uint64_t frames_delivered;  /* callback called (incl. errored, DROPPED) */
	uint64_t frames_error;      /* delivered with an error flag */
	uint64_t frames_dropped;    /* errored and dropped (drop_errors) */
	uint64_t frames_no_buffer;  /* no buffer was given: data discarded */
	uint64_t bytes_overflow;    /* bytes dropped for lack of room */
};

struct uvc_meta_writer;

struct uvc_assembler {
	/* options, set by the caller after init */
	bool drop_errors;
	size_t expected;            /* 0: compressed/variable size */
	bool no_fid;                /* UVC_QUIRK_STREAM_NO_FID: the camera never
				     * toggles FID, a frame ends at EOF only */
	/* A frame starts with no spare buffer: the caller's last chance to
	 * give one (uvc_assembler_set_buffer from inside); NULL: none. */
	void (*need_buffer)(void *opaque);
	/* The caller's clock when the data it feeds arrived (CLOCK_MONOTONIC
	 * ns, set before each transfer is fed): a frame's start_ns. */
	uint64_t now_ns;
	/* Payload headers as metadata blocks (uvc/metadata.h), each stamped
	 * with now_ns: those that go to a buffer, as uvcvideo's metadata node
	 * gets them. NULL: none. The caller gives the writer its buffer. */
	struct uvc_meta_writer *meta;
	/* private */
	uvc_frame_cb cb;
	void *opaque;
	uint8_t *spare;
	size_t spare_cap;
	uint8_t *spare_mirror;
	size_t spare_mirror_cap;
	int last_fid;               /* -1: none yet (first payload accepted) */
	uint64_t sequence;
	int pending_err_fid;        /* -1, or the FID of a header-only ERR */
	bool pending_lost;          /* a packet was lost between frames */
	int lost_fid;               /* -1, or the FID before a bulk payload lost
				     * between frames (see bulk_payload_invalid) */
	struct {
		bool active;
		bool fid;
		uint8_t *buf;
		size_t cap, bytes;
		uint8_t *mirror;
		size_t mirror_cap, mirror_bytes;
		uint32_t flags;
		bool has_pts, has_scr;
		uint32_t pts, scr_stc;
		uint16_t scr_sof;
		uint64_t sequence;
		uint64_t start_ns;
	} frame;
	/* the payload being fed */
	struct uvc_payload_header hdr;
	bool in_payload;            /* header parsed, data may follow */
	/* bulk */
	enum { UVC_BULK_IDLE, UVC_BULK_HEADER, UVC_BULK_DATA, UVC_BULK_SKIP } bulk_state;
	uint8_t bulk_hdr[255];
	size_t bulk_hdr_len;
	struct uvc_assembler_stats stats;
	/* SCR samples: the newest SCR of the transfer being fed, then one per
	 * transfer (the newest kept when the caller takes none for long) */
	bool transfer_has_scr;
	uint32_t transfer_scr;
	struct uvc_scr_sample scr[UVC_ASM_SCR_SAMPLES];
	unsigned scr_first, scr_count;
};

void uvc_assembler_init(struct uvc_assembler *a, uvc_frame_cb cb, void *opaque);

/* The transfer fed since now_ns was set is done: its newest SCR becomes a
 * sample. A payload is stamped when its transfer arrived, so the last SCR
 * of a transfer is the one that waited least for it (uvc/clock.h). */
void uvc_assembler_transfer_done(struct uvc_assembler *a);

/* Moves up to max SCR samples, oldest first, into out; returns how many. */
unsigned uvc_assembler_take_scr(struct uvc_assembler *a, struct uvc_scr_sample *out,
				unsigned max);

/* Stream (re)start: drops the frame in progress and the spare buffer without
 * delivering them, forgets the FID, restarts the sequence. Options and
 * stats are kept. */
void uvc_assembler_reset(struct uvc_assembler *a);

/* Gives the spare buffer the next frame is written to (NULL: none). It
 * replaces a spare given before, and its mirror. */
void uvc_assembler_set_buffer(struct uvc_assembler *a, uint8_t *buf, size_t cap);

/* The spare's mirror (after uvc_assembler_set_buffer; NULL: none): the
 * frame that takes the spare writes each byte into buf too (cap bytes at
 * most: what does not fit is left out of the mirror only). Without a
 * spare, no mirror is kept. */
void uvc_assembler_set_mirror(struct uvc_assembler *a, uint8_t *buf, size_t cap);

/* The caller takes buffer from back (the spare, the frame in progress, or
 * a mirror): the assembler goes on in to (cap bytes), the frame's bytes so
 * far copied there (what exceeds cap is lost and the frame errored with
 * OVERFLOW). to NULL: a spare goes with its mirror; the frame in progress
 * goes on in its mirror when it has one (the mirror becomes its buffer),
 * else without a buffer, its data discarded as for a frame that started
 * without one; a mirror taken back is simply no longer written. */
void uvc_assembler_move_buffer(struct uvc_assembler *a, const uint8_t *from, uint8_t *to,
			       size_t cap);
/* Whether a frame is being written into buf now (not just given as the
 * spare); its sequence number in *sequence. */
bool uvc_assembler_writing(const struct uvc_assembler *a, const uint8_t *buf, uint64_t *sequence);
/* Expected frame size of uncompressed formats; 0 for compressed ones. */
void uvc_assembler_set_expected(struct uvc_assembler *a, size_t bytes);

/* Isochronous: one packet is one payload. Zero-length packets are ignored.
 * Returns 0, or -EINVAL for a payload with a bad header (dropped). */
int uvc_assembler_packet(struct uvc_assembler *a, const uint8_t *data, size_t len);

/* A packet or transfer that never arrived (its status was an error); a bulk
 * payload in progress ends with it. */
void uvc_assembler_packet_lost(struct uvc_assembler *a);

/* Bulk: the next len bytes of the stream (one URB); transfer_end when this
 * URB ends a payload transfer (len may be 0 for a zero-length packet).
 * Returns 0, or -EINVAL when a bad header makes the assembler drop the rest
 * of that payload transfer. */
int uvc_assembler_bulk(struct uvc_assembler *a, const uint8_t *data, size_t len,
		       bool transfer_end);

#endif
