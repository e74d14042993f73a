"""A user's program, type-checked by wheel_test.sh with mypy --strict
against the installed prnn: py.typed makes mypy read the package's own
annotations, so a wrong use of its API is an error here, not at run time."""

from typing import List

import prnn
import prnn.cache


def describe() -> str:
    version: str = prnn.__version__
    return f"prnn {version} ({prnn.library_version()}, {prnn.library_path()})"


def stale_entries(directory: str) -> List[str]:
    return [f.path for f in prnn.cache.files(directory, verify=True) if not f.valid]


def clear(directory: str) -> int:
    try:
        result = prnn.cache.clear(directory)
    except prnn.PrnnError as e:
        return e.status
    return result.removed


if __name__ == "__main__":
    print(describe(), stale_entries(prnn.cache.default_directory()))
