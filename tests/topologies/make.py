#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes the synthetic cameras of tests/topologies/: one small bulk MJPEG
camera (UVC 1.00, 640x480 and 320x240) whose VideoControl topology is broken
the way real firmware breaks it (README.md). Run it from anywhere; it
rewrites the .cfg.bin files beside itself."""
import os
import struct

CS_INTERFACE = 0x24
CT_BITS = bytes([0x2a, 0x0a, 0x00])  # AE mode, exposure, focus, zoom, pan/tilt absolute
PU_BITS = bytes([0x5b, 0x16])        # brightness, contrast, saturation, sharpness, WB
                                     # temperature, gain, power line, WB auto
XU_GUID = bytes(range(0x10, 0x20))


def camera_terminal(tid, itype=0x0201):
    if itype == 0x0202:  # media transport input: no controls, no transport modes
        return bytes([10, CS_INTERFACE, 2, tid]) + struct.pack('<H', itype) + bytes([0, 0, 0, 0])
    if itype != 0x0201:
        return bytes([8, CS_INTERFACE, 2, tid]) + struct.pack('<H', itype) + bytes([0, 0])
    return (bytes([15 + len(CT_BITS), CS_INTERFACE, 2, tid]) + struct.pack('<H', itype) +
            bytes([0, 0]) + struct.pack('<HHH', 0, 0, 0) + bytes([len(CT_BITS)]) + CT_BITS)


def output_terminal(tid, source, otype=0x0101):
    return bytes([9, CS_INTERFACE, 3, tid]) + struct.pack('<H', otype) + bytes([0, source, 0])


def processing_unit(uid, source):
    return (bytes([9 + len(PU_BITS), CS_INTERFACE, 5, uid, source]) + struct.pack('<H', 0) +
            bytes([len(PU_BITS)]) + PU_BITS + bytes([0]))


def selector_unit(uid, sources):
    return bytes([6 + len(sources), CS_INTERFACE, 4, uid, len(sources)]) + bytes(sources) + b'\0'


def extension_unit(uid, sources, guid=XU_GUID):
    bm = bytes([0x03])  # two controls
    return (bytes([24 + len(sources) + len(bm), CS_INTERFACE, 6, uid]) + guid +
            bytes([2, len(sources)]) + bytes(sources) + bytes([len(bm)]) + bm + b'\0')


def encoding_unit(uid, source):
    return bytes([13, CS_INTERFACE, 7, uid, source, 0, 3, 0, 0, 0, 0, 0, 0])


TOPOLOGIES = {
    # uvcvideo's fallback: the output terminal's source names no entity
    'dangling_source': [camera_terminal(1), processing_unit(2, 1), extension_unit(4, [2]),
                        output_terminal(3, 9)],
    # an extension unit and the output terminal both numbered 4, the
    # terminal fed by the unit: the first keeps the ID
    'duplicate_xu_ot': [camera_terminal(1), processing_unit(3, 1), extension_unit(4, [3]),
                        output_terminal(4, 4)],
    # two extension units numbered 5 hanging from the processing unit
    'duplicate_unit': [camera_terminal(1), processing_unit(2, 1), extension_unit(5, [2]),
                       extension_unit(5, [2], bytes(range(0x20, 0x30))),
                       output_terminal(3, 2)],
    # the camera terminal numbered 0 and the processing unit fed by "0"
    'zero_id': [camera_terminal(0), processing_unit(2, 0), output_terminal(3, 2)],
    # an extension unit on the chain fed by an entity that does not exist
    'unit_source_nowhere': [camera_terminal(1), processing_unit(2, 1), extension_unit(3, [7]),
                            output_terminal(4, 3)],
    # a selector unit with two inputs: the camera and a media transport input
    'selector': [camera_terminal(1), camera_terminal(2, 0x0202), selector_unit(3, [1, 2]),
                 processing_unit(4, 3), output_terminal(5, 4)],
    # a selector unit whose second input names nothing: no chain at all
    'selector_broken': [camera_terminal(1), camera_terminal(2, 0x0202), selector_unit(3, [1, 9]),
                        processing_unit(4, 3), output_terminal(5, 4)],
    # an extension unit with two inputs on the chain
    'xu_two_inputs': [camera_terminal(1), processing_unit(2, 1), extension_unit(3, [2, 1]),
                      output_terminal(4, 3)],
    # an extension unit fed by the output terminal
    'xu_from_ot': [camera_terminal(1), processing_unit(2, 1), output_terminal(3, 2),
                   extension_unit(4, [3])],
    # two processing units on the chain: no chain at all
    'two_pus': [camera_terminal(1), processing_unit(2, 1), processing_unit(3, 2),
                output_terminal(4, 3)],
    # a UVC 1.5 encoding unit on the chain, which uvcvideo 6.1 does not parse
    'encoding_unit': [camera_terminal(1), processing_unit(2, 1), encoding_unit(3, 2),
                      output_terminal(4, 3)],
}


def interface(number, alt, endpoints, cls, subclass):
    return bytes([9, 4, number, alt, endpoints, cls, subclass, 0, 0])


def video_control(entities):
    body = b''.join(entities)
    header = bytes([13, CS_INTERFACE, 1]) + struct.pack('<HHI', 0x0100, 13 + len(body),
                                                        48000000) + bytes([1, 1])
    return (interface(0, 0, 1, 14, 1) + header + body +
            bytes([7, 5, 0x83, 3]) + struct.pack('<H', 16) + bytes([8]) +
            bytes([5, 0x25, 3]) + struct.pack('<H', 16))


def mjpeg_frame(index, width, height):
    intervals = [333333, 666666, 1000000]
    return (bytes([26 + 4 * len(intervals), CS_INTERFACE, 7, index, 0]) +
            struct.pack('<HHIII', width, height, width * height * 16 * 10,
                        width * height * 16 * 30, width * height * 2) +
            struct.pack('<I', intervals[0]) + bytes([len(intervals)]) +
            b''.join(struct.pack('<I', i) for i in intervals))


def video_streaming(terminal_link):
    frames = mjpeg_frame(1, 640, 480) + mjpeg_frame(2, 320, 240)
    fmt = bytes([11, CS_INTERFACE, 6, 1, 2, 1, 1, 0, 0, 0, 0])
    color = bytes([6, CS_INTERFACE, 0x0d, 1, 1, 4])
    rest = fmt + frames + color
    header = bytes([14, CS_INTERFACE, 1, 1]) + struct.pack('<H', 14 + len(rest)) + \
        bytes([0x81, 0, terminal_link, 0, 0, 0, 1, 0])
    return (interface(1, 0, 1, 14, 2) + header + rest +
            bytes([7, 5, 0x81, 2]) + struct.pack('<H', 512) + bytes([0]))


def configuration(entities, terminal_link):
    iad = bytes([8, 11, 0, 2, 14, 3, 0, 0])
    body = iad + video_control(entities) + video_streaming(terminal_link)
    return bytes([9, 2]) + struct.pack('<H', 9 + len(body)) + bytes([2, 1, 0, 0x80, 250]) + body


def streaming_terminal(entities):
    for e in entities:
        if e[2] == 3 and struct.unpack('<H', e[4:6])[0] == 0x0101:
            return e[3]
    raise ValueError('no streaming output terminal')


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for number, (name, entities) in enumerate(sorted(TOPOLOGIES.items()), start=1):
        path = os.path.join(here, 'f0f0_%04x_topology_%s.cfg.bin' % (number, name))
        with open(path, 'wb') as out:
            out.write(configuration(entities, streaming_terminal(entities)))


if __name__ == '__main__':
    main()
