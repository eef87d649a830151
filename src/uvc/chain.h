/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The video chains of a camera as uvcvideo 6.1 finds them (uvc_driver.c:
 * uvc_scan_device, uvc_scan_chain and its forward and backward steps,
 * uvc_scan_fallback): which terminals and units one video node controls, in
 * the order uvcvideo lists them, which is the order of its controls and of
 * its inputs. Pure: a struct uvc_camera in, chains out, no I/O.
 *
 * The rules, and where uvcvideo's later versions differ, are written out
 * in docs/uvcvideo-topologies.md. In short:
 *   - a chain starts at each output terminal not yet in one, in descriptor
 *     order, and walks back through each unit's first source; extension
 *     units and output terminals fed by an entity of the chain join it
 *     (the forward scan); a selector unit with several inputs ends the walk
 *     with every input terminal it names;
 *   - a chain that breaks a rule (a source that names no entity, an
 *     extension unit with several inputs, two processing units, an entity
 *     already in a chain, an unsupported terminal type) is dropped; what it
 *     had taken stays taken, as in uvcvideo, whose entities keep the links;
 *   - no chain at all: the fallback, when the camera has exactly one input
 *     and one output terminal: output terminal, every processing and
 *     one-input extension unit from the last in descriptor order to the
 *     first, input terminal;
 *   - an ID names the first entity that has it in descriptor order (6.1;
 *     6.18 makes the later ones unreachable, which comes to the same); a
 *     source of 0 ends the walk; encoding units, which uvcvideo does not
 *     parse, and terminals of types it skips are not there. */
#ifndef UVC_CHAIN_H
#define UVC_CHAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "uvc/descriptors.h"

#define UVC_CHAIN_MAX_ENTITIES 64 /* a longer chain is dropped (uvcvideo has no limit) */
#define UVC_CHAINS_MAX 8          /* more are not kept */

struct uvc_chain {
	unsigned n;
	uint16_t at[UVC_CHAIN_MAX_ENTITIES]; /* indices in camera->entities, uvcvideo's order */
	int selector;   /* index of the selector unit with several inputs, or -1 */
	int processing; /* index of the processing unit, or -1 */
	bool fallback;  /* made by uvc_scan_fallback */
};

struct uvc_chains {
	unsigned n;
	struct uvc_chain chain[UVC_CHAINS_MAX];
};

/* Finds the chains of camera. Returns how many (0: uvcvideo says "No valid
 * video chain found" and does not bind), or -ENOMEM. */
int uvc_chains_scan(const struct uvc_camera *camera, struct uvc_chains *chains);

/* The chain that holds the streaming output terminal terminal_link (the
 * video node of the streaming interface whose header names it), or NULL:
 * uvcvideo makes no node for that interface. */
const struct uvc_chain *uvc_chains_find_terminal(const struct uvc_chains *chains,
						 const struct uvc_camera *camera,
						 uint8_t terminal_link);

/* The entity at place k of chain. */
static inline const struct uvc_entity *uvc_chain_entity(const struct uvc_camera *camera,
							const struct uvc_chain *chain,
							unsigned k)
{
	return &camera->entities[chain->at[k]];
}

/* The first input terminal of chain (uvcvideo's input 0 without a
 * selector unit), or NULL; NULL chain: NULL. */
const struct uvc_entity *uvc_chain_first_input(const struct uvc_camera *camera,
					       const struct uvc_chain *chain);

/* The input terminal of chain whose ID is id, or NULL. */
const struct uvc_entity *uvc_chain_input_by_id(const struct uvc_camera *camera,
					       const struct uvc_chain *chain, uint8_t id);

#endif
