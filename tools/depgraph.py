#!/usr/bin/env python3
"""File-level dependency graph of a set of object files, derived from their symbols.

An edge a -> b means: a's object file uses a symbol (function or data) that b's object
file defines.  The graph is read from `nm` output, so it is what the linker sees, not
what the #includes suggest.  A cycle between files means two files each need the other:
the layering is tangled.  With --check the script fails (exit 1) on any cycle and
prints it; --dot writes the graph for Graphviz; --layers prints the files bottom-up.

    tools/depgraph.py --check build/CMakeFiles/rocjit_objects.dir build/cli ...
    tools/depgraph.py --dot graph.dot DIR...

Each argument is an object file or a folder searched for *.o files.  A group of folders
is checked as one graph (the CLI's objects together with the library's show edges from
the CLI into the library, which can never form a cycle since the library never calls
the CLI).  Exit status: 0 no cycle, 1 a cycle, 2 bad usage or nm failed.
"""

import argparse
import os
import re
import subprocess
import sys


def object_files(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, _dirs, files in os.walk(p):
                out.extend(os.path.join(root, f) for f in files if f.endswith(".o"))
        elif os.path.isfile(p):
            out.append(p)
        else:
            sys.exit(f"depgraph: {p}: no such file or folder")
    return sorted(out)


def source_name(obj):
    """build/CMakeFiles/rocjit_objects.dir/src/store/cache.c.o -> src/store/cache.c"""
    m = re.search(r"\.dir/(.*)\.o$", obj)
    name = m.group(1) if m else obj
    # The objects of a file outside the target's folder are named with __ for ../
    return name.replace("__/", "")


def symbols(obj, nm):
    try:
        text = subprocess.run([nm, "-P", obj], check=True, capture_output=True,
                              text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"depgraph: {nm} {obj}: {e}")
    defined, used = set(), set()
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            used.add(name)
        elif kind in "TDBRCVWGSIu":    # global definitions; local ones cannot be used
            defined.add(name)
    return defined, used


def build_graph(objs, nm):
    defs, uses = {}, {}
    owner = {}
    for o in objs:
        f = source_name(o)
        d, u = symbols(o, nm)
        defs[f], uses[f] = d, u
        for s in d:
            owner.setdefault(s, f)
    graph = {f: {} for f in defs}
    for f, u in uses.items():
        for s in u:
            g = owner.get(s)
            if g and g != f:
                graph[f].setdefault(g, []).append(s)
    return graph


def fold(graph):
    """The same graph between the files' folders."""
    out = {}
    for a, edges in graph.items():
        fa = os.path.dirname(a)
        out.setdefault(fa, {})
        for b, syms in edges.items():
            fb = os.path.dirname(b)
            if fb != fa:
                out[fa].setdefault(fb, []).extend(f"{os.path.basename(a)}:{s}" for s in syms)
    for edges in graph.values():
        for b in edges:
            out.setdefault(os.path.dirname(b), {})
    return out


def strongly_connected(graph):
    """Tarjan's algorithm, iterative: the groups of files that reach each other."""
    index, low, on_stack, stack, groups = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    n = stack.pop()
                    on_stack.discard(n)
                    group.append(n)
                    if n == node:
                        break
                groups.append(sorted(group))
    return groups


def layers(graph):
    """Files bottom-up: a file's layer is one more than the highest file it uses."""
    level = {}

    def depth(f, seen):
        if f in level:
            return level[f]
        if f in seen:
            return 0
        seen.add(f)
        d = 1 + max((depth(g, seen) for g in graph[f]), default=-1)
        level[f] = d
        return d

    for f in graph:
        depth(f, set())
    return level


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("paths", nargs="+", help="object files or folders of them")
    ap.add_argument("--check", action="store_true", help="exit 1 on a cycle")
    ap.add_argument("--dot", metavar="FILE", help="write the graph in Graphviz form")
    ap.add_argument("--layers", action="store_true", help="print the files bottom-up")
    ap.add_argument("--folders", action="store_true",
                    help="also check the graph between folders (src/store -> src/key...)")
    ap.add_argument("--nm", default=os.environ.get("NM", "nm"))
    args = ap.parse_args()

    objs = object_files(args.paths)
    if not objs:
        print("depgraph: no object files found (build first)", file=sys.stderr)
        return 2
    graph = build_graph(objs, args.nm)
    if args.folders:
        graph = fold(graph)
    cycles = [g for g in strongly_connected(graph) if len(g) > 1]

    if args.dot:
        with open(args.dot, "w") as f:
            f.write("digraph rocjit {\n  rankdir=BT;\n")
            for a in sorted(graph):
                for b in sorted(graph[a]):
                    f.write(f'  "{a}" -> "{b}";\n')
            f.write("}\n")
    if args.layers:
        level = layers(graph)
        for f in sorted(graph, key=lambda f: (level[f], f)):
            print(f"{level[f]:3d}  {f}")

    unit = "folders" if args.folders else "files"
    for group in cycles:
        print(f"depgraph: cycle between {len(group)} {unit}:", file=sys.stderr)
        members = set(group)
        for a in group:
            for b in sorted(graph[a]):
                if b in members:
                    syms = sorted(graph[a][b])
                    more = f" (+{len(syms) - 3} more)" if len(syms) > 3 else ""
                    print(f"  {a} -> {b}: {', '.join(syms[:3])}{more}", file=sys.stderr)
    if args.check:
        if cycles:
            return 1
        print(f"depgraph: {len(graph)} {unit}, "
              f"{sum(len(v) for v in graph.values())} edges, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
