#!/usr/bin/env python3
"""remote_own.py - rocjit's own time in a remote hit, from bench_remote's output.

bench_remote prints, for each child, own= (rocjit_open + the request) and remote= (the
time spent talking to the server: connect, request and reply, rocjit_stats.remote_ms).
rocjit's own time, as bench/RESULTS.md defines it since issue 2 (the request less the
time in the calls to what rocjit does not own, there hipRTC), is own - remote for a
remote hit.  This prints, for each section ("== ..." lines, as remote_bench.sh writes
them) and each remote series, the medians of own, of remote and of own - remote taken
per process, with its quartiles and maximum.

    bench/remote_own.py bench/results/h100-remote-zero-copy-sm90.txt ...
"""
import re
import statistics
import sys


def quartile(values, q):
    v = sorted(values)
    return v[(len(v) - 1) * q // 4]


def main(paths):
    for path in paths:
        section, series = "", {}
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("=="):
                    section = line.strip("= \n")
                    continue
                m = re.match(r"^(remote|remote-signed)\s+open=", line)
                if not m:
                    continue
                fields = {k: float(v) for k, v in re.findall(r"(\w+)=([\d.]+)", line)}
                series.setdefault((section, m.group(1)), []).append(fields)
        print(f"== {path}")
        for (sec, name), rows in series.items():
            own = [r["own"] for r in rows]
            io = [r["remote"] for r in rows]
            mine = [r["own"] - r["remote"] for r in rows]
            print(f"{sec[:38]:38s} {name:13s} n={len(rows):3d}  own {statistics.median(own):.3f}"
                  f"  server {statistics.median(io):.3f}  own less server: median "
                  f"{statistics.median(mine):.3f} (p25 {quartile(mine, 1):.3f}, p75 "
                  f"{quartile(mine, 3):.3f}, max {max(mine):.3f}) ms")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: remote_own.py BENCH_REMOTE_OUTPUT...")
    main(sys.argv[1:])
