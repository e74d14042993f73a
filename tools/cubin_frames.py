#!/usr/bin/env python3
"""Each kernel's stack frame and register count in cubins, without cuobjdump.

Reads the ELF's global .nv.info section (EIATTR_FRAME_SIZE, EIATTR_REGCOUNT,
each keyed by the function's symbol) of every file given: a cubin, or a
prnn kernel-cache file (its header, then the cubin). A non-zero frame is
local memory: registers run out (spills, ptxas -v's "spill stores"), or an
array the compiler could not keep in registers, such as a kernel parameter
indexed at run time. To check what a plan runs without a GPU:

    prnn-cache --dir D --arch sm_90 warm && python3 tools/cubin_frames.py D/*.cubin

prints "file kernel frame_bytes registers" for every kernel with a frame
(--all: every kernel).
"""
import argparse
import os
import struct

EIFMT_SVAL = 4
EIATTR_FRAME_SIZE = 0x11
EIATTR_REGCOUNT = 0x2F


def sections(elf):
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    table = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    names_at = table[shstrndx][4]

    def name(offset, base):
        return elf[base + offset:elf.index(b"\0", base + offset)].decode()

    return {name(s[0], names_at): s for s in table}, table, name


def kernel_info(elf):
    """{function: (frame bytes, registers)} of one cubin."""
    named, table, name = sections(elf)
    symtab = named[".symtab"]
    strtab_at = table[symtab[6]][4]
    entry = symtab[9]
    symbols = [name(struct.unpack_from("<I", elf, symtab[4] + i * entry)[0], strtab_at)
               for i in range(symtab[5] // entry)]
    info = named.get(".nv.info")
    if info is None:
        return {}
    data = elf[info[4]:info[4] + info[5]]
    frame, regs = {}, {}
    i = 0
    while i + 4 <= len(data):
        fmt, attr, size = struct.unpack_from("<BBH", data, i)
        if fmt != EIFMT_SVAL:
            i += 4
            continue
        if attr in (EIATTR_FRAME_SIZE, EIATTR_REGCOUNT) and size == 8:
            index, value = struct.unpack_from("<II", data, i + 4)
            (frame if attr == EIATTR_FRAME_SIZE else regs)[symbols[index]] = value
        i += 4 + size
    return {f: (frame.get(f, 0), regs.get(f)) for f in set(frame) | set(regs)
            if not f.startswith("$")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="cubins or prnn kernel-cache files")
    ap.add_argument("--all", action="store_true", help="every kernel, not only those with a frame")
    args = ap.parse_args()
    for path in args.files:
        with open(path, "rb") as f:
            blob = f.read()
        start = blob.find(b"\x7fELF")
        if start < 0:
            continue
        for fn, (frame, regs) in sorted(kernel_info(blob[start:]).items()):
            if frame or args.all:
                print(os.path.basename(path), fn, frame, regs)


if __name__ == "__main__":
    main()
