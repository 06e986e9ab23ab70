"""A PEP 517 build backend for the gpuecon Python package, standard library only.

The wheel holds python/gpuecon/ and the library it runs on, so that an install that succeeds also
imports (nothing is fetched; pip install --no-index works offline). The library is, in this order:
  1. $GPUECON_LIBRARY (an error if that file does not exist);
  2. ../build/libgpuecon.so.1, the library `make` builds, when building from the source tree;
  3. in the source tree without it: built now, as `make` does (cmake; the build dependencies of
     scripts/deps.sh), into ../build;
  4. outside the source tree (from an sdist): an installed libgpuecon.so.1 (`make install`), which the
     package then loads at import; the wheel is pure Python (py3-none-any) and bundles nothing.
Otherwise the build fails with a message saying what to do, before anything is installed.

A bundled library is machine code: the wheel's tag names its platform, read from the library's
ELF header (py3-none-linux_x86_64 for an x86-64 one), never py3-none-any. The Python side is
ctypes, so one wheel serves every Python 3 (py3-none).
"""
import base64
import ctypes.util
import hashlib
import io
import os
import shutil
import struct
import subprocess
import tarfile
import zipfile

NAME, VERSION = "gpuecon", "0.2.0"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.dirname(HERE)  # the source tree, when python/ is inside one
PURE = "py3-none-any"


class BuildError(Exception):
    """Why no wheel could be made (pip shows the message)."""


# ELF e_machine -> the platform tag's machine, as sysconfig names it (PEP 425 / PEP 600)
_MACHINES = {62: "x86_64", 183: "aarch64", 3: "i686", 21: "ppc64", 22: "s390x", 243: "riscv64"}


def _platform_tag(lib):
    """linux_<machine> of an ELF shared library (its header's class, byte order and e_machine)."""
    with open(lib, "rb") as f:
        head = f.read(20)
    if len(head) < 20 or head[:4] != b"\x7fELF":
        raise BuildError("gpuecon: %s is not an ELF shared library" % lib)
    order = "<" if head[5] == 1 else ">"
    machine = struct.unpack(order + "H", head[18:20])[0]
    name = _MACHINES.get(machine)
    if name is None:
        raise BuildError("gpuecon: %s is for an ELF machine %d this backend has no wheel tag for" % (lib, machine))
    if name == "ppc64" and order == "<":
        name = "ppc64le"
    return "py3-none-linux_" + name


def _build_library():
    """Builds libgpuecon.so.1 in the source tree as `make` does; its path, or BuildError."""
    cmake = shutil.which("cmake")
    if cmake is None:
        raise BuildError("gpuecon: libgpuecon is not built and cmake is not installed. Install the build "
                         "dependencies (scripts/deps.sh) and run `make` in %s, or set GPUECON_LIBRARY to a "
                         "built libgpuecon.so.1, then pip install again." % SOURCE)
    build = os.path.join(SOURCE, "build")
    steps = [[cmake, "-S", SOURCE, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DGPUECON_TESTS=OFF"],
             [cmake, "--build", build, "--target", "gpuecon_shared", "-j", str(os.cpu_count() or 2)]]
    for step in steps:
        r = subprocess.run(step, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            raise BuildError("gpuecon: building libgpuecon failed (%s):\n%s\nInstall the build dependencies "
                             "(scripts/deps.sh) and run `make` in %s, or set GPUECON_LIBRARY."
                             % (" ".join(step), r.stdout[-3000:], SOURCE))
    lib = os.path.join(build, "libgpuecon.so.1")
    if not os.path.isfile(lib):
        raise BuildError("gpuecon: the build did not make %s" % lib)
    return lib


def _metadata():
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: What it costs to train or serve a model on a "
            "GPU platform (bindings over libgpuecon)\nLicense: MIT\nRequires-Python: >=3.9\n"
            "Provides-Extra: dataframes\nRequires-Dist: pandas; extra == \"dataframes\"\n"
            "Provides-Extra: plots\nRequires-Dist: matplotlib; extra == \"plots\"\n" % (NAME, VERSION))


def _library():
    """The library to bundle (a path), or None when the wheel is to use an installed one; BuildError
    when there is neither (the order is the module's docstring's)."""
    env = os.environ.get("GPUECON_LIBRARY")
    if env:
        if not os.path.isfile(env):
            raise BuildError("gpuecon: GPUECON_LIBRARY is %s, which is not a file" % env)
        return os.path.realpath(env)
    in_tree = os.path.isfile(os.path.join(SOURCE, "CMakeLists.txt")) and \
        os.path.isfile(os.path.join(SOURCE, "include", "gpuecon.h"))
    if in_tree:
        built = os.path.join(SOURCE, "build", "libgpuecon.so.1")
        return os.path.realpath(built if os.path.isfile(built) else _build_library())
    if ctypes.util.find_library("gpuecon"):
        return None
    raise BuildError("gpuecon: no libgpuecon to bundle or to load: this is not the gpuecon source tree and no "
                     "libgpuecon.so.1 is installed. Install it (`make install` in the source tree), or set "
                     "GPUECON_LIBRARY to a built libgpuecon.so.1, then pip install again.")


def _files(lib):
    pkg = os.path.join(HERE, NAME)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py") or name == "py.typed":  # py.typed: type checkers read the signatures (PEP 561)
            with open(os.path.join(pkg, name), "rb") as f:
                yield "%s/%s" % (NAME, name), f.read()
    if lib:
        with open(lib, "rb") as f:
            yield "%s/libgpuecon.so.1" % NAME, f.read()


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    dist = "%s-%s.dist-info" % (NAME, VERSION)
    lib = _library()
    tag = _platform_tag(lib) if lib else PURE
    wheel = "%s-%s-%s.whl" % (NAME, VERSION, tag)
    files = list(_files(lib))
    files.append(("%s/METADATA" % dist, _metadata().encode()))
    files.append(("%s/WHEEL" % dist, ("Wheel-Version: 1.0\nGenerator: gpuecon_build\nRoot-Is-Purelib: %s\n"
                                     "Tag: %s\n" % ("false" if lib else "true", tag)).encode()))
    record = [_record_line(p, d) for p, d in files] + ["%s/RECORD,," % dist]
    files.append(("%s/RECORD" % dist, ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files:
            info = zipfile.ZipInfo(path, (2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if path.endswith(".so.1") else 0o644) << 16
            z.writestr(info, data, zipfile.ZIP_DEFLATED)
    return wheel


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (NAME, VERSION)
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for rel in ("pyproject.toml", "_build/gpuecon_build.py"):
            t.add(os.path.join(HERE, rel), "%s/%s" % (base, rel))
        for path, data in _files(None):
            if path.endswith((".py", "py.typed")):
                info = tarfile.TarInfo("%s/%s" % (base, path))
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
        meta = _metadata().encode()
        info = tarfile.TarInfo("%s/PKG-INFO" % base)
        info.size = len(meta)
        t.addfile(info, io.BytesIO(meta))
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []
