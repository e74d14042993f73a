"""The C API binding: every function in prnn.h is declared, with the right
number of arguments, and failures raise PrnnError with the library's log."""

import ctypes
import os
import re

import pytest

import prnn
from prnn import _capi
from prnn._descriptors import RNNDesc

HEADER = os.path.join(os.path.dirname(__file__), "..", "..", "include", "prnn.h.in")


def _header_functions():
    text = open(HEADER, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = {}
    for m in re.finditer(r"PRNN_API\s+([^;{]*?)\b(prnn\w+)\s*\(([^)]*)\)\s*;", text, re.S):
        args = [a.strip() for a in m.group(3).split(",")]
        args = [] if args == ["void"] else args
        out[m.group(2)] = args
    return out


def test_every_function_is_declared_with_its_arity():
    header = _header_functions()
    declared = {name: argtypes for name, _, argtypes in _capi.FUNCTIONS}
    assert sorted(header) == sorted(declared)
    for name, args in header.items():
        assert len(declared[name]) == len(args), name
        for c_arg, py_type in zip(args, declared[name]):
            is_pointer = "*" in c_arg or "[]" in c_arg or re.search(
                r"\bprnn(Handle|TensorDescriptor|FilterDescriptor|DropoutDescriptor|"
                r"RNNDescriptor|RNNDataDescriptor)_t\b", c_arg)
            py_pointer = py_type is ctypes.c_void_p or hasattr(py_type, "_type_") and \
                issubclass(py_type, ctypes._Pointer)
            assert bool(is_pointer) == bool(py_pointer), f"{name}: {c_arg} vs {py_type}"
            if "size_t" in c_arg and "*" not in c_arg:
                assert py_type is ctypes.c_size_t, f"{name}: {c_arg}"
            if "unsigned long long" in c_arg and "*" not in c_arg:
                assert py_type is ctypes.c_ulonglong, f"{name}: {c_arg}"
            elif "unsigned int" in c_arg and "*" not in c_arg:
                assert py_type is ctypes.c_uint, f"{name}: {c_arg}"


def test_plan_info_matches_the_header():
    text = open(HEADER, encoding="utf-8").read()
    body = re.search(r"typedef struct \{(.*?)\} prnnRNNPlanInfo_t;", text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    names = re.findall(r"(\w+)(?:\[\d+\])*\s*;", body)
    assert names == [f[0] for f in _capi.PlanInfo._fields_]


def _header_enumerators():
    """Every enumerator of the header's enums and its value (an enumerator
    without one is the previous value plus one, as in C)."""
    text = re.sub(r"/\*.*?\*/", "", open(HEADER, encoding="utf-8").read(), flags=re.S)
    values = {}
    for body in re.findall(r"typedef\s+enum\s*\{(.*?)\}\s*\w+\s*;", text, re.S):
        value = -1
        for item in filter(None, (i.strip() for i in body.split(","))):
            m = re.fullmatch(r"(PRNN_\w+)(?:\s*=\s*(-?\w+))?", item)
            assert m, f"an enumerator this test cannot read: {item!r}"
            value = int(m.group(2), 0) if m.group(2) else value + 1
            values[m.group(1)] = value
    # flag macros: "#define PRNN_X 0" or "#define PRNN_X (1U << n)"
    for name, plain, shift in re.findall(
            r"#define\s+(PRNN_\w+)\s+(?:(\d+)U?|\(1U\s*<<\s*(\d+)\))\s*$", text, re.M):
        values[name] = int(plain) if plain else 1 << int(shift)
    return values


def test_enum_values_equal_the_headers():
    """The values _capi.py copies from prnn.h by hand: each of its integer
    constants X is the header's PRNN_X, and STATUS_NAMES is the header's
    prnnStatus_t."""
    header = _header_enumerators()
    copied = {name: value for name, value in vars(_capi).items()
              if name.isupper() and type(value) is int}
    assert "DATA_FLOAT" in copied and "LSTM" in copied and "CACHE_FILE_ENTRY" in copied
    for name, value in copied.items():
        assert "PRNN_" + name in header, f"_capi.{name}: prnn.h has no PRNN_{name}"
        assert value == header["PRNN_" + name], \
            f"_capi.{name} = {value}, prnn.h's PRNN_{name} = {header['PRNN_' + name]}"
    statuses = {value: name[len("PRNN_STATUS_"):] for name, value in header.items()
                if name.startswith("PRNN_STATUS_")}
    assert _capi.STATUS_NAMES == statuses


def test_version_and_path():
    v = prnn.library_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", v)
    assert os.path.exists(prnn.library_path()) or prnn.library_path().startswith("libprnn")


def test_failure_raises_with_the_log():
    with pytest.raises(prnn.PrnnError) as e:
        RNNDesc(0, 1, False, _capi.LSTM, _capi.DATA_FLOAT)
    assert e.value.status_name == "BAD_PARAM"
    assert "hiddenSize" in e.value.log
    assert "hiddenSize" in str(e.value)


def test_cuda_libraries_from_nvidia_pip_wheels(tmp_path, monkeypatch):
    """Where the system's loader finds no libnvrtc, the one in NVIDIA's pip
    wheels (what PyTorch installs) is named to libprnn through
    PRNN_NVRTC_LIBRARY; a user's own setting wins."""
    from prnn import _library
    lib = tmp_path / "nvidia" / "cu13" / "lib"
    lib.mkdir(parents=True)
    (lib / "libnvrtc.so.13").write_bytes(b"")
    monkeypatch.setattr(_library, "_loadable", lambda name: False)
    monkeypatch.setattr(_library.sys, "path", [str(tmp_path)])
    # "" reads as unset, and (unlike delenv) makes monkeypatch restore the
    # variable as it was: libprnn reads it when it first loads NVRTC, in
    # later tests
    monkeypatch.setenv("PRNN_NVRTC_LIBRARY", "")
    _library._point_at_pip_cuda_library(
        "PRNN_NVRTC_LIBRARY", ["libnvrtc.so.13"], ["nvidia/cu13/lib/libnvrtc.so.13"])
    assert os.environ["PRNN_NVRTC_LIBRARY"] == str(lib / "libnvrtc.so.13")
    monkeypatch.setenv("PRNN_NVRTC_LIBRARY", "/mine/libnvrtc.so")
    _library._point_at_pip_cuda_library(
        "PRNN_NVRTC_LIBRARY", ["libnvrtc.so.13"], ["nvidia/cu13/lib/libnvrtc.so.13"])
    assert os.environ["PRNN_NVRTC_LIBRARY"] == "/mine/libnvrtc.so"
