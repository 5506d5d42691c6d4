#!/usr/bin/env python3
# stale_board.py INDEX - sets every entry's last use on a rocjit read index's usage board
# (cache/FORMAT.md, "The read index") to an hour ago: the next process's first hit then
# writes the board at once, as after a quiet spell (bench/first_hit_stale.sh).
import mmap
import struct
import sys
import time

HEADER = 128        # the header's size; the board follows it
NENTRIES_AT = 60    # u32 entry count in the header
USAGE_OFF_AT = 104  # u64 offset of the board in the header

with open(sys.argv[1], 'r+b') as f:
    m = mmap.mmap(f.fileno(), 0)
    if m[:8] != b'rjindex\0':
        sys.exit('%s is not a rocjit index' % sys.argv[1])
    nentries = struct.unpack_from('I', m, NENTRIES_AT)[0]
    usage_off = struct.unpack_from('Q', m, USAGE_OFF_AT)[0]
    if usage_off != HEADER:
        sys.exit('%s: unexpected layout (board at %d)' % (sys.argv[1], usage_off))
    hour_ago = int(time.time()) - 3600
    for i in range(nentries):
        struct.pack_into('q', m, HEADER + 64 + 16 * i + 8, hour_ago)
    m.close()
