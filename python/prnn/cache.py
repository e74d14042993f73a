"""The kernel cache, for pip users: ``python -m prnn.cache list|verify|clear``
and ``python -m prnn.cache --arch sm_90 warm`` (also installed as the
``prnn-cache`` command).

The same command as the C tool prnn-cache, line for line and exit status
for exit status (tests/package checks them against each other): the
library's cache-maintenance calls (prnnScanKernelCache,
prnnClearKernelCache, prnnWarmKernelCache, prnnGetCacheDirectory) find,
check, remove and compile the files, this module only prints. From Python
code, `files()`, `clear()` and `warm()` return what the commands print.
"""

import ctypes
import os
import sys
import time
from typing import List, NamedTuple, Optional, Sequence, TextIO

from . import _capi

TOOL = "prnn-cache"
EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2

USAGE = """usage: prnn-cache [--dir DIR] list|verify|clear
       prnn-cache [--dir DIR] --arch sm_XY [--db shipped|user|both]
                  [--data packed|unpacked|both] warm
       python -m prnn.cache [--dir DIR] list|verify|clear
       python -m prnn.cache [--dir DIR] --arch sm_XY [--db WHICH] [--data WHICH] warm

  list    one line per cached kernel: file, kernel, source, arch,
          NVRTC version, size, age
  verify  re-read every entry and check its header, name and
          payload checksum
  clear   remove every entry, and every temporary file (of the
          cache or of the user tuning DB) that no running writer
          holds; it goes on past files it cannot remove and says
          why
  warm    compile, without a GPU, the kernels that training plans
          of the tuning DB's shapes for GPUs of one architecture
          load, into the cache (a container image can ship it
          filled); kernels already there are not compiled again

  The user tuning DB ($PRNN_TUNING_DB, else DIR/tuning.json) is
  never touched; its writers' temporary files are listed and
  cleared with the cache's.

  --dir DIR    the cache directory (default: $PRNN_CACHE_DIR, else
               $XDG_CACHE_HOME/prnn, else ~/.cache/prnn)
  --arch ARCH  warm: the architecture, sm_90 or 90 (70, 75, 80, 86,
               87, 89, 90, 100, 120)
  --db WHICH   warm: the shapes of the shipped DB, of the user DB, or
               both (default both)
  --data WHICH warm: the plans of packed data (the v5 calls, the
               SEQ_MAJOR_PACKED layout), of unpacked data (the padded
               layouts, prnn.torch's batch_first input; about three
               times packed's compile time), or both (default both)
  -h, --help   this text
  --version    prnn-cache's version (and the loaded library's)

Exit status:
  0  done (list also when it shows bad entries)
  1  verify found a bad entry (one prnn would not load included) or
     the directory is one prnn does not trust, the directory could
     not be read or a file could not be removed, warm could not
     compile a kernel (or has no NVRTC, or cannot use the
     directory), or there is no cache directory (no $HOME and no
     --dir)
  2  bad arguments (the message names the argument and the rule;
     nothing was done)
"""


class CacheFile(NamedTuple):
    """One file of the cache directory (prnnCacheFile_t)."""
    kind: int             # _capi.CACHE_FILE_ENTRY, _TEMPORARY, _TUNING_DB_TEMPORARY
    path: str
    name: str
    valid: bool
    problem: str          # why not valid ("" when valid)
    kernel: str           # entries: from the key stored in the file
    source: str
    sm: int
    nvrtc_version: str
    file_bytes: int
    modified_time: int    # seconds since the epoch


class WarmResult(NamedTuple):
    """What warm() did (prnnCacheWarmResult_t)."""
    shapes: int           # (GPU, shape) pairs of the tuning DBs for the architecture
    kernels: int          # distinct kernels their plans load
    compiled: int         # compiled by NVRTC now
    cached: int           # already in the cache
    failed: int           # could not be compiled
    compile_ms: float     # NVRTC time, summed over its threads


class ClearResult(NamedTuple):
    """What clear() did (prnnCacheClearResult_t)."""
    removed: int
    kept: int             # temporary files a running writer holds
    failed: int
    first_failure: str    # path and why ("" when none)


def _text(raw: Optional[bytes]) -> str:
    return raw.decode("utf-8", "replace") if raw else ""


def _arg(path: Optional[str]) -> Optional[bytes]:
    return os.fsencode(path) if path is not None else None


def default_directory() -> str:
    """The cache directory the library uses: $PRNN_CACHE_DIR, else
    $XDG_CACHE_HOME/prnn, else ~/.cache/prnn. Raises PrnnError when there is
    none."""
    buf = ctypes.create_string_buffer(4096)
    _capi.call("prnnGetCacheDirectory", buf, len(buf))
    return os.fsdecode(buf.value)


def files(directory: Optional[str] = None, tuning_db: Optional[str] = None,
          verify: bool = False) -> List[CacheFile]:
    """The cache's files: the user tuning DB's temporary files first, then
    the cache's entries and temporary files sorted by name. verify: also
    check each entry's payload checksum. directory None: the default;
    tuning_db None: $PRNN_TUNING_DB, else <directory>/tuning.json."""
    found: List[CacheFile] = []

    def visit(file: "ctypes._Pointer[_capi.CacheFile]", user: Optional[int]) -> int:
        f = file.contents
        found.append(CacheFile(f.kind, os.fsdecode(f.path or b""), os.fsdecode(f.name or b""),
                               bool(f.valid), _text(f.problem), _text(f.kernel),
                               _text(f.source), f.sm, _text(f.nvrtcVersion), f.fileBytes,
                               f.modifiedTime))
        return 0

    callback = _capi.CacheFileCallback(visit)
    _capi.call("prnnScanKernelCache", _arg(directory), _arg(tuning_db), int(verify), callback,
               None)
    return found


def clear(directory: Optional[str] = None, tuning_db: Optional[str] = None) -> ClearResult:
    """Removes the cache's entries and the temporary files no running writer
    holds (of the cache and of the tuning DB), going on past files it cannot
    remove; raises PrnnError (after removing what it could) when one could
    not be removed or the directory cannot be read."""
    result, status = _clear(directory, tuning_db)
    _capi.api().check("prnnClearKernelCache", status)
    return result


def _clear(directory: Optional[str], tuning_db: Optional[str]) -> "tuple[ClearResult, int]":
    r = _capi.CacheClearResult()
    r.structSize = ctypes.sizeof(r)
    status = _capi.api().prnnClearKernelCache(_arg(directory), _arg(tuning_db), ctypes.byref(r))
    return ClearResult(r.removed, r.kept, r.failed, _text(r.firstFailure)), status


WARM_SOURCES = {"shipped": _capi.WARM_SHIPPED_DB, "user": _capi.WARM_USER_DB,
                "both": _capi.WARM_SHIPPED_DB | _capi.WARM_USER_DB}
WARM_DATA = {"packed": _capi.WARM_PACKED_DATA, "unpacked": _capi.WARM_UNPACKED_DATA,
             "both": _capi.WARM_PACKED_DATA | _capi.WARM_UNPACKED_DATA}


def warm(sm: int, directory: Optional[str] = None, db: str = "both",
         data: str = "both") -> WarmResult:
    """Compiles into the cache (directory None: the default), without a GPU,
    the kernels that training plans of the tuning DBs' shapes (db: "shipped",
    "user" or "both") load on GPUs of architecture sm (90 for sm_90), for
    packed data, unpacked data (the padded layouts, batch_first input) or
    both (data); kernels already cached are not compiled again. Raises
    PrnnError (after compiling what it could) when a kernel does not
    compile, there is no NVRTC, or the directory cannot be used."""
    result, status = _warm(directory, sm, WARM_SOURCES[db] | WARM_DATA[data])
    _capi.api().check("prnnWarmKernelCache", status)
    return result


def _warm(directory: Optional[str], sm: int, sources: int) -> "tuple[WarmResult, int]":
    r = _capi.CacheWarmResult()
    r.structSize = ctypes.sizeof(r)
    status = _capi.api().prnnWarmKernelCache(_arg(directory), sm, sources, ctypes.byref(r))
    return WarmResult(r.shapes, r.kernels, r.compiled, r.cached, r.failed, r.compileMs), status


# ---- the command ---------------------------------------------------------

def _age(seconds: int) -> str:
    seconds = max(seconds, 0)
    if seconds < 120:
        return f"{seconds}s"
    if seconds < 2 * 3600:
        return f"{seconds // 60}m"
    if seconds < 2 * 86400:
        return f"{seconds // 3600}h"
    return f"{seconds // 86400}d"


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def _scan(directory: str, tuning_db: Optional[str], verify: bool, out: TextIO,
          err: TextIO) -> int:
    now = int(time.time())
    entries = temps = bad = 0
    size = 0
    exists = os.path.exists(directory)
    try:
        found = files(directory, tuning_db, verify)
    except _capi.PrnnError as e:
        print(f"{TOOL}: {e.log}", file=err)
        return EXIT_FAILURE
    for f in found:
        age = _age(now - f.modified_time)
        if f.kind == _capi.CACHE_FILE_TUNING_DB_TEMPORARY:
            temps += 1
            print(f"{f.path:<38}  tuning DB temporary file ({f.file_bytes} bytes, {age} old)",
                  file=out)
        elif f.kind == _capi.CACHE_FILE_TEMPORARY:
            temps += 1
            print(f"{f.name:<38}  temporary file ({f.file_bytes} bytes, {age} old)", file=out)
        else:
            entries += 1
            size += f.file_bytes
            bad += not f.valid
            if verify:
                print(f"ok   {f.name}  {f.kernel} sm_{f.sm}" if f.valid
                      else f"BAD  {f.name}  {f.problem}", file=out)
            elif f.valid or f.kernel:
                flag = "" if f.valid else f"  BAD: {f.problem}"
                print(f"{f.name:<38}  {f.kernel:<24} {f.source:<22} sm_{f.sm:<4} "
                      f"nvrtc {f.nvrtc_version:<6} {f.file_bytes:8} B  {age:>5}{flag}", file=out)
            else:
                print(f"{f.name:<38}  BAD: {f.problem}", file=out)
    if not exists:
        print(f"cache directory {directory} does not exist: no entries", file=out)
        return EXIT_OK
    line = f"{directory}: {entries} entr{_plural(entries, 'y', 'ies')}, {size} bytes"
    if temps:
        line += f", {temps} temporary file{_plural(temps, '', 's')}"
    if verify or bad:
        line += f", {bad} bad"
    print(line, file=out)
    # list shows bad entries; only verify fails on them.
    return EXIT_FAILURE if verify and bad else EXIT_OK


def _clear_command(directory: str, tuning_db: Optional[str], out: TextIO, err: TextIO) -> int:
    if not os.path.exists(directory):
        print(f"cache directory {directory} does not exist: no entries to remove", file=out)
    r, _ = _clear(directory, tuning_db)
    line = f"{directory}: removed {r.removed} file{_plural(r.removed, '', 's')}"
    if r.kept:
        line += (f", left {r.kept} temporary file{_plural(r.kept, '', 's')} that a running "
                 "writer holds")
    if r.failed:
        line += f", could not remove {r.failed}"
    print(line, file=out)
    if r.failed:
        print(f"{TOOL}: could not remove {r.failed} file{_plural(r.failed, '', 's')}; the "
              f"first: {r.first_failure}", file=err)
        return EXIT_FAILURE
    return EXIT_OK


def _warm_command(directory: str, sm: int, sources: int, out: TextIO, err: TextIO) -> int:
    r, status = _warm(directory, sm, sources)
    line = (f"{directory}: sm_{sm}, {r.shapes} shape{_plural(r.shapes, '', 's')}, {r.kernels} "
            f"kernel{_plural(r.kernels, '', 's')}: {r.compiled} compiled, {r.cached} already "
            "cached")
    if r.failed:
        line += f", {r.failed} failed"
    print(line, file=out)
    if status:
        api = _capi.api()
        print(f"{TOOL}: {_text(api.prnnGetErrorString(status))}: "
              f"{_text(api.prnnGetLastErrorLog())}", file=err)
        return EXIT_FAILURE
    return EXIT_OK


def _arch(value: str) -> Optional[int]:
    """--arch's value as the C tool reads it: sm_XY or XY, 2 or 3 digits."""
    digits = value[3:] if value.startswith("sm_") else value
    if not (2 <= len(digits) <= 3 and digits.isascii() and digits.isdigit()):
        return None
    return int(digits)


def _bad_args(message: str, err: TextIO) -> int:
    print(f"{TOOL}: {message}\nrun '{TOOL} --help' for the usage", file=err)
    return EXIT_USAGE


def _version() -> str:
    from . import __version__, library_version
    line = f"{TOOL} {__version__}"
    loaded = library_version()
    return line if loaded == __version__ else f"{line} (library loaded: {loaded})"


def main(argv: Optional[Sequence[str]] = None, out: Optional[TextIO] = None,
         err: Optional[TextIO] = None) -> int:
    """Runs the command with argv (default sys.argv[1:]); returns its exit
    status."""
    args = list(sys.argv[1:] if argv is None else argv)
    out = out or sys.stdout
    err = err or sys.stderr
    directory: Optional[str] = None
    sm = 0
    sources = WARM_SOURCES["both"]
    data = WARM_DATA["both"]
    operands: List[str] = []
    i = 0
    # As the C tool's getopt_long: options anywhere, long ones by any
    # unambiguous prefix, "--" ends them.
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            operands.extend(args[i:])
            break
        if a.startswith("--"):
            typed, has_value, value = a[2:].partition("=")
            full = [o for o in ("dir", "arch", "db", "data", "help", "version")
                    if typed and o.startswith(typed)]
            if len(full) > 1:
                names = [f"--{o}" for o in full]
                return _bad_args(f"ambiguous option --{typed}: "
                                 f"{', '.join(names[:-1])} or {names[-1]}", err)
            if len(full) != 1:
                return _bad_args(f"unknown option --{typed}", err)
            if full[0] in ("help", "version"):
                if has_value:
                    return _bad_args(f"option --{full[0]} takes no value", err)
                if full[0] == "help":
                    out.write(USAGE)
                else:
                    print(_version(), file=out)
                return EXIT_OK
            if not has_value:
                if i == len(args):
                    return _bad_args(f"option --{full[0]} needs a value", err)
                value = args[i]
                i += 1
            if full[0] == "arch":
                arch = _arch(value)
                if arch is None:
                    return _bad_args(f'--arch "{value}": must be an architecture, sm_90 or 90',
                                     err)
                sm = arch
            elif full[0] == "db":
                if value not in WARM_SOURCES:
                    return _bad_args(f'--db "{value}": must be shipped, user or both', err)
                sources = WARM_SOURCES[value]
            elif full[0] == "data":
                if value not in WARM_DATA:
                    return _bad_args(f'--data "{value}": must be packed, unpacked or both', err)
                data = WARM_DATA[value]
            elif not value:
                return _bad_args(f'--dir "{value}": must not be empty', err)
            else:
                directory = value
        elif a.startswith("-") and a != "-":
            if a[1] != "h":
                return _bad_args(f"unknown option -{a[1]}", err)
            out.write(USAGE)
            return EXIT_OK
        else:
            operands.append(a)
    if not operands:
        return _bad_args("a command is needed: list, verify, clear or warm", err)
    command = operands[0]
    if command not in ("list", "verify", "clear", "warm"):
        return _bad_args(f'unknown command "{command}": must be list, verify, clear or warm',
                         err)
    if command == "warm" and not sm:
        return _bad_args("warm needs --arch (e.g. --arch sm_90)", err)
    if len(operands) > 1:
        return _bad_args(f'unexpected argument "{operands[1]}": one command at a time', err)
    try:
        if directory is None:
            directory = default_directory()
    except _capi.PrnnError:
        print(f"{TOOL}: no cache directory (set PRNN_CACHE_DIR or HOME, or pass --dir)",
              file=err)
        return EXIT_FAILURE
    if command == "clear":
        return _clear_command(directory, None, out, err)
    if command == "warm":
        return _warm_command(directory, sm, sources | data, out, err)
    return _scan(directory, None, command == "verify", out, err)


if __name__ == "__main__":
    sys.exit(main())
