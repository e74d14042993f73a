#!/usr/bin/env python3
"""Writes a ninja file that builds libprnn's sources (those of meson's
prnn_core target, generated ones included, with its include folders and
defines) and a libFuzzer target with clang and the sanitizers. Meson builds
the project with the configured compiler (gcc in CI); a fuzzer needs clang's
instrumentation in the library too, so the few flags that matter are taken
from meson's introspection and everything is compiled again, incrementally
(ninja), in the fuzzer's own folder.

usage: fuzz_build.py BUILD_DIR WORK_DIR TARGET_SOURCE OUTPUT_NAME CC
"""
import json
import os
import shlex
import sys


def main():
    build, work, target_src, output, cc = sys.argv[1:6]
    with open(os.path.join(build, "meson-info", "intro-targets.json")) as f:
        targets = json.load(f)
    core = [t for t in targets if t["name"] == "prnn_core"]
    if not core:
        sys.exit("fuzz_build.py: no prnn_core target in " + build)
    sources, flags = [], []
    for ts in core[0]["target_sources"]:
        if ts.get("language") != "c":
            continue
        sources += ts["sources"] + ts.get("generated_sources", [])
        for p in ts["parameters"]:
            if p.startswith(("-I", "-D", "-std=")) or p == "-fvisibility=hidden":
                flags.append(p)
    flags = list(dict.fromkeys(flags))
    san = "-fsanitize=address,undefined -fno-sanitize-recover=all"
    cflags = " ".join(shlex.quote(f) for f in flags)
    lines = [
        f"cc = {cc}",
        f"cflags = {cflags} -g -O1 -fno-omit-frame-pointer {san} -fsanitize=fuzzer-no-link",
        f"ldflags = {san} -fsanitize=fuzzer",
        "libs = " + os.environ.get("PRNN_FUZZ_LIBS", "-lcjson -lm -ldl -lpthread"),
        "rule cc",
        "  command = $cc -MMD -MF $out.d $cflags -c $in -o $out",
        "  depfile = $out.d",
        "  deps = gcc",
        "  description = CC $in",
        "rule link",
        "  command = $cc $ldflags $in -o $out $libs",
        "  description = LINK $out",
    ]
    objs = []
    for src in sources + [target_src]:
        obj = "obj/" + src.strip("/").replace("/", "_") + ".o"
        objs.append(obj)
        lines.append(f"build {obj}: cc {src}")
    lines.append(f"build {output}: link " + " ".join(objs))
    lines.append(f"default {output}")
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "build.ninja")
    text = "\n".join(lines) + "\n"
    old = open(path).read() if os.path.exists(path) else None
    if old != text:  # unchanged: ninja's times stay valid
        with open(path, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
