/* Private to the files of the controls (controls.h): what they ask of each
 * other. controls.c: the controls built from the chain, requests and their
 * answers, lookup, control classes, queries, get, set and commit;
 * controls_xu.c: extension unit controls and the mappings applications
 * add. */
#ifndef V4L2_CONTROLS_PRIV_H
#define V4L2_CONTROLS_PRIV_H

#include <stdint.h>

#include "v4l2/controls.h"

#define BIT(n) (1u << (n))

/* --- controls.c ---------------------------------------------------------- */

/* The error a failed request left for the operation that asked for it (0:
 * none); taking it clears it. */
int ctrls_take_error(struct ctrls *c);

/* A mapping of this id makes its control class one of the camera's. */
void ctrls_mark_class(struct ctrls *c, uint32_t id);

/* --- controls_xu.c ------------------------------------------------------- */

/* ctrls_feed of a request that introduces an extension unit control
 * (r->ctrl CTRLS_XU_INIT): GET_LEN, then GET_INFO, which adds it. */
void ctrls_xu_feed_init(struct ctrls *c, const struct ctrls_request *r, const uint8_t *data,
			int len);

#endif
