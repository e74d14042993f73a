"""package-check-wheel: tools/check-wheel.py, the wheel's gatekeeper, finds
what it is for, without building a wheel (no network, a second): a wheel
assembled here from this build's libprnn and python/, with everything
right, passes but for what this build cannot give (a library linked here
needs this host's glibc, newer than the tag claims, and maybe its
libcjson); each defect put into a copy is then reported by name.

usage: check_wheel_selftest.py LIBPRNN (this build's libprnn.so)
"""

import importlib.util
import os
import re
import sys
import tempfile
import zipfile

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location("check_wheel",
                                              os.path.join(root, "tools", "check-wheel.py"))
cw = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cw)
library = sys.argv[1]
version = cw.project_version()
TAG = "manylinux2014_x86_64.manylinux_2_17_x86_64.manylinux_2_28_x86_64"
failures = []


def build(path, tag=TAG, drop=(), metadata_edit=lambda m: m, extra=()):
    info = f"prnn-{version}.dist-info"
    meta = "\n".join([
        "Metadata-Version: 2.4", "Name: prnn", f"Version: {version}",
        "Summary: s", "Keywords: rnn", "Author: the prnn authors", "License-Expression: MIT",
        "License-File: LICENSE", "License-File: third_party/cjson/LICENSE",
        "Requires-Python: >=3.9", "Description-Content-Type: text/markdown",
        "Classifier: Typing :: Typed", "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: Environment :: GPU :: NVIDIA CUDA",
    ] + [f"Classifier: Programming Language :: Python :: {v}" for v in cw.PYTHONS]) + "\n\n"
    files = {f"{info}/METADATA": metadata_edit(meta),
             f"{info}/WHEEL": "Wheel-Version: 1.0\nRoot-Is-Purelib: false\n" + "".join(
                 f"Tag: py3-none-{p}\n" for p in tag.split(".")),
             f"{info}/entry_points.txt": "[console_scripts]\nprnn-cache = prnn.cache:main\n",
             "prnn/_version.py": f'__version__ = "{version}"\n'}
    for rel in cw.source_modules():
        files[rel] = open(os.path.join(root, "python", rel), "rb").read()
    for source, inside in cw.LICENSES.items():
        files[f"{info}/licenses/{inside}"] = open(os.path.join(root, source), "rb").read()
    files["prnn/libprnn.so"] = open(library, "rb").read()
    files.update(dict(extra))
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            if name not in drop:
                z.writestr(name, data)
    return path


# What a library built here may need that a wheel's must not: this host's
# glibc, and the system's libcjson when this build found one (-Dcjson=auto).
HOST = [r"GLIBC_", r"libprnn\.so needs libcjson"]


def expect(what, problems, wanted):
    """Every wanted pattern among problems, and nothing beyond what this
    host's build needs (HOST)."""
    missing = [w for w in wanted if not any(re.search(w, p) for p in problems)]
    other = [p for p in problems if not any(re.search(w, p) for w in wanted + HOST)]
    ok = not missing and not other
    print(("ok - " if ok else "not ok - ") + what)
    for p in problems:
        print(f"    {p}")
    if not ok:
        failures.append(f"{what}: missing {missing}, unexpected {other}")


with tempfile.TemporaryDirectory() as tmp:
    name = f"prnn-{version}-py3-none-{TAG}.whl"
    good = build(os.path.join(tmp, name))
    expect("a complete wheel: nothing but what this host's build needs", cw.check(good, "2.28"),
           [])
    # The ELF reader behind the glibc check, on this build's library.
    needed, versions = cw.elf_dynamic_info(open(library, "rb").read())
    glibc = sorted({v for names in versions.values() for v in names if v.startswith("GLIBC_")})
    ok = "libc.so.6" in needed and "GLIBC_2.2.5" in glibc
    print(("ok - " if ok else "not ok - ") + f"the ELF reader: needs {needed}, {glibc}")
    if not ok:
        failures.append("the ELF reader finds no libc.so.6 / GLIBC_2.2.5 in libprnn")

    os.makedirs(os.path.join(tmp, "cp"))
    cp = build(os.path.join(tmp, "cp", f"prnn-{version}-cp311-cp311-linux_x86_64.whl"))
    expect("a cp311 linux_x86_64 wheel", cw.check(cp, "2.28"), [r"not prnn-<version>-py3-none"])

    os.makedirs(os.path.join(tmp, "new"))
    new = build(os.path.join(tmp, "new", f"prnn-{version}-py3-none-manylinux_2_34_x86_64.whl"),
                tag="manylinux_2_34_x86_64")
    expect("a wheel tagged for glibc 2.34", cw.check(new, "2.28"), [r"needs glibc 2\.34"])

    os.makedirs(os.path.join(tmp, "bad"))
    info = f"prnn-{version}.dist-info"
    bad = build(os.path.join(tmp, "bad", name),
                drop=(f"{info}/licenses/third_party/cjson/LICENSE", "prnn/py.typed",
                      "prnn/cache.py"),
                metadata_edit=lambda m: m.replace("License-Expression: MIT\n", "License: MIT\n")
                .replace("Classifier: Programming Language :: Python :: 3.13\n", ""),
                extra=[("prnn.libs/libcjson-1234.so.1", b""),
                       ("prnn/__pycache__/cache.cpython-311.pyc", b"")])
    expect("a wheel with every defect", cw.check(bad, "2.28"), [
        r"missing licence file .*third_party/cjson/LICENSE",
        r"missing from the wheel: prnn/py\.typed",
        r"missing from the wheel: prnn/cache\.py",
        r"License-Expression None",
        r"legacy License field",
        r"classifier missing: Programming Language :: Python :: 3\.13",
        r"a shared library other than prnn/libprnn\.so: prnn\.libs/libcjson",
        r"bytecode in the wheel",
    ])

if failures:
    print("FAIL: " + "; ".join(failures))
    sys.exit(1)
print("tools/check-wheel.py finds every defect it is given")
