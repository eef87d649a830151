#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""OpenCV as an app captures it (cv2.CAP_V4L2), for the VM scenarios.

    cv2_capture.py NODE FILE COUNT

Asks YUYV 640x480 and the camera's bytes (no RGB conversion), reads COUNT
frames and writes them to FILE for uvcuse-framecheck. Run it with Debian's
python3 (python3-opencv), under uvcuse-run for MMAP.
"""
import sys

import cv2


def main():
    node, path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    cap = cv2.VideoCapture(node, cv2.CAP_V4L2)
    assert cap.isOpened(), "VideoCapture did not open"
    cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"YUYV"))
    cap.set(cv2.CAP_PROP_FRAME_WIDTH, 640)
    cap.set(cv2.CAP_PROP_FRAME_HEIGHT, 480)
    cap.set(cv2.CAP_PROP_CONVERT_RGB, 0)  # the camera's bytes, for the checker
    with open(path, "wb") as out:
        for i in range(count):
            ok, frame = cap.read()
            assert ok, f"read {i} failed"
            assert frame.size == 640 * 480 * 2, f"frame {i}: {frame.size} bytes"
            out.write(frame.tobytes())
    print("OpenCV", cv2.__version__, "backend", cap.getBackendName(), "read", count, "frames")


if __name__ == "__main__":
    main()
