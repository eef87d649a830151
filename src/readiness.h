/* systemd's Type=notify: READY=1 once the node exists and udev has applied
 * its rules to it (its "add" event came through udev's monitor), STATUS=
 * lines when what they show changes. Nothing happens when NOTIFY_SOCKET is
 * not set. */
#ifndef UVCUSE_READINESS_H
#define UVCUSE_READINESS_H

#include <stdbool.h>

struct loop;
struct readiness;

/* Starts watching udev for the cuse device `node` ("video10"); call before
 * the node is registered so its event cannot be missed. *out is NULL when
 * not under systemd. Returns 0 or -errno (then nothing is watched). */
int readiness_new(struct loop *loop, const char *node, struct readiness **out);
/* Whether udev has announced the node (true without a monitor). */
bool readiness_udev_done(const struct readiness *r);
/* READY=1, once; stops watching udev. */
void readiness_ready(struct readiness *r);
/* STATUS=text, only when it differs from the last one sent. */
void readiness_status(struct readiness *r, const char *text);
void readiness_free(struct readiness *r);

#endif
