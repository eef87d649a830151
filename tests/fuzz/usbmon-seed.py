#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""usbmon-seed.py TRACE OUT: one usbmon mmap packet (64-byte header, hex text,
as in the shared corpus's streams/) as a fuzz_payload input: its iso packets
or its bulk URB, in the target's length-prefixed records."""
import struct, sys

raw = bytes.fromhex(open(sys.argv[1]).read())
xfer_type = raw[9]                      # 0 iso, 3 bulk
length, len_cap = struct.unpack_from('<II', raw, 0x20)
ndesc = struct.unpack_from('<I', raw, 0x3c)[0]
out = bytearray()
if xfer_type == 0:
    out += bytes([0x08]) + struct.pack('<H', 0xffff)   # iso, buffers given back
    data = raw[64 + 16 * ndesc:]
    for i in range(ndesc):
        status, off, plen = struct.unpack_from('<iII', raw, 64 + 16 * i)
        pkt = data[off:off + plen] if status == 0 else b''
        out += struct.pack('<H', len(pkt)) + pkt
else:
    out += bytes([0x09]) + struct.pack('<H', 0xffff)   # bulk
    urb = raw[64:64 + len_cap]
    chunks = [urb[i:i + 8192] for i in range(0, len(urb), 8192)]
    for n, c in enumerate(chunks):
        end = 0x4000 if n == len(chunks) - 1 else 0
        out += struct.pack('<H', len(c) | end) + c
open(sys.argv[2], 'wb').write(out)
