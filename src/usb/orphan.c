/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Transfers that outlive their camera (see internal.h): a stop that gave
 * up waiting hands them over here, so that a late callback touches
 * nothing the camera owned. */
#include "usb/internal.h"

static void on_orphan_transfer(struct libusb_transfer *t)
{
	libusb_free_transfer(t); /* and the buffer, when it was the heap's */
}

void usb_transfer_orphan(struct libusb_transfer *t, bool heap_buffer)
{
	/* Safe while in flight: libusb reads these on the loop thread, when
	 * the transfer completes, and that is where we run. */
	t->user_data = NULL;
	if (heap_buffer)
		t->flags |= LIBUSB_TRANSFER_FREE_BUFFER;
	/* else usbfs device memory: it may still be written by the kernel and
	 * needs the handle to unmap; left mapped, deliberately */
	t->callback = on_orphan_transfer;
}
