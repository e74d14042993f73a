#!/usr/bin/env python3
"""Checks a prnn wheel (tools/build-wheel.sh runs it on what it builds):

- the tag: py3-none-manylinux_2_M_x86_64 (or a set of such tags: auditwheel
  adds the older ones the library qualifies for) whose oldest glibc is no
  newer than --glibc, in the file name and in WHEEL alike;
- the contents: every module of python/prnn (compared with the source tree
  the script sits in), the generated _version.py, py.typed, libprnn.so and
  no other shared library, no bytecode;
- the metadata: version (meson.build's), PEP 639 licence fields and the
  licence files of prnn and of cJSON (linked into libprnn) with the source
  tree's text, classifiers for every supported Python, keywords, authors,
  Requires-Python, the prnn-cache command;
- libprnn.so itself, read as ELF: the GLIBC_x.y symbol versions it needs are
  all ≤ the oldest glibc its tags claim, and it needs no library beyond
  glibc's (libcjson above all).

With --sdist, the source distribution too: no bench/results (measurements,
megabytes of them), the licences, the vendored cJSON, PKG-INFO's licence.

Standard library only. Exit status 0 when every check passes, 1 otherwise
(each failure printed), 2 for bad arguments.

usage: tools/check-wheel.py [--glibc 2.28] [--sdist SDIST] WHEEL
"""

import argparse
import os
import re
import struct
import sys
import tarfile
import zipfile
from email.parser import Parser

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHONS = ["3.9", "3.10", "3.11", "3.12", "3.13"]
GLIBC_LIBRARIES = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
                   "ld-linux-x86-64.so.2"}
LICENSES = {"LICENSE": "LICENSE", "third_party/cjson/LICENSE": "third_party/cjson/LICENSE"}


def project_version():
    text = open(os.path.join(ROOT, "meson.build"), encoding="utf-8").read()
    return re.search(r"version:\s*'([^']+)'", text).group(1)


def source_modules():
    """python/prnn's modules, as paths inside the wheel."""
    base = os.path.join(ROOT, "python")
    out = set()
    for folder, dirs, files in os.walk(os.path.join(base, "prnn")):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for f in files:
            if f.endswith(".py") or f == "py.typed":
                out.add(os.path.relpath(os.path.join(folder, f), base).replace(os.sep, "/"))
    return out


def elf_dynamic_info(data):
    """(DT_NEEDED names, version names needed from each library) of an
    ELF64 little-endian shared object."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = []
    for i in range(shnum):
        (name, kind, flags, addr, offset, size, link, info, align,
         entsize) = struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
        sections.append((kind, offset, size, link, info))

    def string(strtab, at):
        start = sections[strtab][1] + at
        return data[start:data.index(b"\0", start)].decode()

    needed, versions = [], {}
    for kind, offset, size, link, info in sections:
        if kind == 6:  # SHT_DYNAMIC
            for at in range(offset, offset + size, 16):
                tag, value = struct.unpack_from("<qQ", data, at)
                if tag == 0:
                    break
                if tag == 1:  # DT_NEEDED
                    needed.append(string(link, value))
        elif kind == 0x6FFFFFFE:  # SHT_GNU_verneed: info = number of entries
            at = offset
            for _ in range(info):
                _, count, file, aux, nxt = struct.unpack_from("<HHIII", data, at)
                names, a = [], at + aux
                for _ in range(count):
                    _, _, _, vname, anext = struct.unpack_from("<IHHII", data, a)
                    names.append(string(link, vname))
                    a += anext
                versions[string(link, file)] = names
                at += nxt
    return needed, versions


def manylinux_glibc(platform):
    """(2, M) of a manylinux x86_64 platform tag, None for another tag."""
    legacy = {"manylinux1_x86_64": (2, 5), "manylinux2010_x86_64": (2, 12),
              "manylinux2014_x86_64": (2, 17)}
    if platform in legacy:
        return legacy[platform]
    m = re.fullmatch(r"manylinux_(\d+)_(\d+)_x86_64", platform)
    return (int(m.group(1)), int(m.group(2))) if m else None


def version_tuple(text):
    return tuple(int(p) for p in text.split("."))


def check(wheel, glibc):
    problems = []

    def fail(message):
        problems.append(message)

    version = project_version()
    name = os.path.basename(wheel)
    m = re.fullmatch(r"prnn-([^-]+)-py3-none-([\w.]+)\.whl", name)
    platforms = m.group(2).split(".") if m else []
    tag_glibcs = [manylinux_glibc(p) for p in platforms]
    if not m or not platforms or None in tag_glibcs:
        fail(f"{name}: not prnn-<version>-py3-none-<manylinux x86_64 tags>.whl")
        return problems
    if m.group(1) != version:
        fail(f"{name}: version {m.group(1)}, meson.build says {version}")
    # The oldest glibc a tag claims: the library must run there.
    oldest = ".".join(map(str, min(tag_glibcs)))
    if version_tuple(oldest) > version_tuple(glibc):
        fail(f"{name}: its oldest tag needs glibc {oldest}, newer than {glibc}")

    z = zipfile.ZipFile(wheel)
    files = set(z.namelist())
    info = f"prnn-{version}.dist-info"
    wheel_meta = z.read(f"{info}/WHEEL").decode()
    tags = re.findall(r"^Tag: (.*)$", wheel_meta, re.M)
    expected = {f"py3-none-{p}" for p in platforms}
    if set(tags) != expected:
        fail(f"WHEEL's tags {tags}, the file name's {sorted(expected)}")
    if "Root-Is-Purelib: false" not in wheel_meta:
        fail("WHEEL: Root-Is-Purelib should be false (the wheel holds libprnn.so)")

    for path in sorted(source_modules() | {"prnn/_version.py", "prnn/libprnn.so"}):
        if path not in files:
            fail(f"missing from the wheel: {path}")
    for path in sorted(files):
        if "__pycache__" in path or path.endswith(".pyc"):
            fail(f"bytecode in the wheel: {path}")
        if re.search(r"\.so(\.|$)", path) and path != "prnn/libprnn.so":
            fail(f"a shared library other than prnn/libprnn.so: {path} (libprnn should carry "
                 "everything it needs but glibc)")
    version_py = z.read("prnn/_version.py").decode() if "prnn/_version.py" in files else ""
    if f'__version__ = "{version}"' not in version_py:
        fail(f"prnn/_version.py does not set __version__ = \"{version}\": {version_py!r}")

    for source, inside in LICENSES.items():
        path = f"{info}/licenses/{inside}"
        if path not in files:
            fail(f"missing licence file {path} (from {source})")
        elif z.read(path) != open(os.path.join(ROOT, source), "rb").read():
            fail(f"{path} differs from {source}")

    meta = Parser().parsestr(z.read(f"{info}/METADATA").decode())
    if version_tuple(meta["Metadata-Version"]) < (2, 4):
        fail(f"Metadata-Version {meta['Metadata-Version']}: PEP 639's fields need 2.4")
    if meta["Version"] != version:
        fail(f"METADATA Version {meta['Version']}, meson.build says {version}")
    if meta["License-Expression"] != "MIT":
        fail(f"License-Expression {meta['License-Expression']!r}, expected 'MIT'")
    if meta["License"] is not None:
        fail("METADATA has the legacy License field beside License-Expression")
    if sorted(meta.get_all("License-File") or []) != sorted(LICENSES.values()):
        fail(f"License-File {meta.get_all('License-File')}, expected {sorted(LICENSES.values())}")
    if meta["Requires-Python"] is None or "3.9" not in meta["Requires-Python"]:
        fail(f"Requires-Python {meta['Requires-Python']!r}: should admit 3.9")
    classifiers = set(meta.get_all("Classifier") or [])
    for wanted in [f"Programming Language :: Python :: {v}" for v in PYTHONS] + [
            "Typing :: Typed", "Operating System :: POSIX :: Linux",
            "Environment :: GPU :: NVIDIA CUDA"]:
        if wanted not in classifiers:
            fail(f"classifier missing: {wanted}")
    for field in ("Keywords", "Summary", "Description-Content-Type"):
        if not meta[field]:
            fail(f"METADATA has no {field}")
    if not (meta["Author"] or meta["Author-email"]):
        fail("METADATA names no author")
    entry_points = z.read(f"{info}/entry_points.txt").decode() \
        if f"{info}/entry_points.txt" in files else ""
    if not re.search(r"^prnn-cache\s*=\s*prnn\.cache:main$", entry_points, re.M):
        fail("entry_points.txt has no prnn-cache = prnn.cache:main")

    if "prnn/libprnn.so" in files:
        needed, versions = elf_dynamic_info(z.read("prnn/libprnn.so"))
        for lib in needed:
            if lib not in GLIBC_LIBRARIES:
                fail(f"libprnn.so needs {lib}: only glibc's libraries may be assumed")
        newest = (0, 0)
        for lib, names in versions.items():
            for v in names:
                if v.startswith("GLIBC_") and re.fullmatch(r"GLIBC_[\d.]+", v):
                    t = version_tuple(v[6:])
                    newest = max(newest, t)
                    if t > version_tuple(oldest):
                        fail(f"libprnn.so needs {v} (from {lib}), newer than glibc {oldest} "
                             "that its tag claims")
        print(f"check-wheel: libprnn.so needs {', '.join(needed)}; newest symbol version "
              f"GLIBC_{'.'.join(map(str, newest))}")
    return problems


def check_sdist(sdist):
    problems = []
    version = project_version()
    top = f"prnn-{version}/"
    with tarfile.open(sdist) as t:
        names = set(t.getnames())
        pkg_info = t.extractfile(top + "PKG-INFO").read().decode() \
            if top + "PKG-INFO" in names else ""
    for path in ["LICENSE", "third_party/cjson/LICENSE", "third_party/cjson/cjson/cJSON.c",
                 "pyproject.toml", "meson.build", "include/prnn.h.in"]:
        if top + path not in names:
            problems.append(f"sdist: missing {path}")
    results = sorted(n for n in names if n.startswith(top + "bench/results"))
    if results:
        problems.append(f"sdist: holds bench/results ({len(results)} entries; .gitattributes "
                        "marks it export-ignore)")
    if "License-Expression: MIT" not in pkg_info:
        problems.append("sdist: PKG-INFO has no License-Expression: MIT")
    size = os.path.getsize(sdist)
    print(f"check-wheel: {os.path.basename(sdist)}: {len(names)} entries, {size // 1024} KiB")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--glibc", default="2.28", help="the oldest glibc the wheel must run on")
    ap.add_argument("--sdist", help="also check this source distribution")
    ap.add_argument("wheel")
    args = ap.parse_args()
    problems = check(args.wheel, args.glibc)
    if args.sdist:
        problems += check_sdist(args.sdist)
    for p in problems:
        print(f"check-wheel: FAIL: {p}")
    if problems:
        return 1
    print(f"check-wheel: ok: {os.path.basename(args.wheel)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
