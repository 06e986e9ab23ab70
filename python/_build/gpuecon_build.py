"""A PEP 517 build backend for the gpuecon Python package, standard library only.

It writes a pure-Python wheel of python/gpuecon/ (no compiler, nothing fetched), and bundles
libgpuecon.so.1 into it when one is found: $GPUECON_LIBRARY, else ../build/libgpuecon.so.1 (the
library `make` builds). Without a bundled copy the package finds an installed libgpuecon
(`make install`) at import time.
"""
import base64
import hashlib
import io
import os
import tarfile
import zipfile

NAME, VERSION = "gpuecon", "0.2.0"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TAG = "py3-none-any"


def _metadata():
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: What it costs to train or serve a model on a "
            "GPU platform (bindings over libgpuecon)\nLicense: MIT\nRequires-Python: >=3.9\n"
            "Provides-Extra: dataframes\nRequires-Dist: pandas; extra == \"dataframes\"\n"
            "Provides-Extra: plots\nRequires-Dist: matplotlib; extra == \"plots\"\n" % (NAME, VERSION))


def _library():
    for path in (os.environ.get("GPUECON_LIBRARY"), os.path.join(HERE, "..", "build", "libgpuecon.so.1")):
        if path and os.path.isfile(path):
            return os.path.realpath(path)
    return None


def _files():
    pkg = os.path.join(HERE, NAME)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py"):
            with open(os.path.join(pkg, name), "rb") as f:
                yield "%s/%s" % (NAME, name), f.read()
    lib = _library()
    if lib:
        with open(lib, "rb") as f:
            yield "%s/libgpuecon.so.1" % NAME, f.read()


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    dist = "%s-%s.dist-info" % (NAME, VERSION)
    wheel = "%s-%s-%s.whl" % (NAME, VERSION, TAG)
    files = list(_files())
    files.append(("%s/METADATA" % dist, _metadata().encode()))
    files.append(("%s/WHEEL" % dist, ("Wheel-Version: 1.0\nGenerator: gpuecon_build\nRoot-Is-Purelib: true\n"
                                     "Tag: %s\n" % TAG).encode()))
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
        for path, data in _files():
            if path.endswith(".py"):
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
