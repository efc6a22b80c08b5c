#!/usr/bin/env python3
"""Fetches the MLIR sources that lighthouse's Python bindings are built from.

Debian's binary MLIR packages carry no Python binding sources, so they come
from Debian's orig tarball of the same LLVM release, pinned with its sha256 in
`build_tools/llvm_version.txt`. The tarball is downloaded with `apt-get source`
against a private source list (the system's apt configuration is untouched),
kept in a cache outside the repository, and only the folders the build and the
tests need are extracted.

Prints the extracted source root (laid out like an llvm-project checkout).
"""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
VERSION_FILE = REPO_ROOT / "build_tools" / "llvm_version.txt"

# Folders of the tarball (relative to its top directory) that lighthouse uses.
EXTRACTED_PATHS = (
    "cmake/Modules/LLVMVersion.cmake",
    "mlir/include",
    "mlir/lib/Bindings/Python",
    "mlir/lib/ExecutionEngine",
    "mlir/python",
    "mlir/test/python",
)


def read_version_file(path: Path = VERSION_FILE) -> dict:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            pins[key.strip()] = value.strip()
    return pins


def default_cache_dir() -> Path:
    if "LIGHTHOUSE_CACHE_DIR" in os.environ:
        return Path(os.environ["LIGHTHOUSE_CACHE_DIR"])
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "lighthouse"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def log(message: str) -> None:
    print(f"fetch_mlir_sources: {message}", file=sys.stderr)


def download_tarball(pins: dict, cache: Path) -> Path:
    """Downloads the orig tarball with apt-get source, trying each suite."""
    tarball = cache / pins["SOURCE_TARBALL"]
    apt_dir = cache / "apt"
    for suite in pins["DEBIAN_SOURCE_SUITES"].split():
        suite_dir = apt_dir / suite
        (suite_dir / "lists" / "partial").mkdir(parents=True, exist_ok=True)
        (suite_dir / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
        source_list = suite_dir / "sources.list"
        source_list.write_text(
            "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
            f"http://deb.debian.org/debian {suite} main\n"
        )
        apt_options = [
            f"-oDir::Etc::SourceList={source_list}",
            "-oDir::Etc::SourceParts=/nonexistent",
            f"-oDir::State::Lists={suite_dir / 'lists'}",
            f"-oDir::Cache={suite_dir / 'cache'}",
            "-qq",
        ]
        log(f"looking for {tarball.name} in Debian {suite}")
        update = subprocess.run(["apt-get", *apt_options, "update"], capture_output=True, text=True)
        if update.returncode != 0:
            log(f"apt-get update for {suite} failed: {update.stderr.strip()}")
            continue
        with tempfile.TemporaryDirectory(dir=cache) as download_dir:
            # apt-get exits non-zero when the .dsc or debian.tar.xz of a
            # security update is missing from the pool although the orig
            # tarball arrived; the sha256 check below is what counts.
            subprocess.run(
                [
                    "apt-get",
                    *apt_options,
                    "source",
                    "--download-only",
                    pins["DEBIAN_SOURCE_PACKAGE"],
                ],
                cwd=download_dir,
                capture_output=True,
                text=True,
            )
            fetched = Path(download_dir) / tarball.name
            if fetched.exists():
                shutil.move(fetched, tarball)
                return tarball
        log(f"{tarball.name} is not in Debian {suite}")
    raise SystemExit(
        f"fetch_mlir_sources: could not download {tarball.name} from Debian "
        f"(suites tried: {pins['DEBIAN_SOURCE_SUITES']}). Place the file in {cache} "
        "by hand, or pass LIGHTHOUSE_MLIR_SOURCE_DIR pointing at an llvm-project "
        "checkout of the same version."
    )


def ensure_tarball(pins: dict, cache: Path) -> Path:
    tarball = cache / pins["SOURCE_TARBALL"]
    expected = pins["SOURCE_TARBALL_SHA256"]
    if tarball.exists() and sha256_of(tarball) == expected:
        return tarball
    download_tarball(pins, cache)
    actual = sha256_of(tarball)
    if actual != expected:
        tarball.unlink()
        raise SystemExit(
            f"fetch_mlir_sources: {tarball.name} has sha256 {actual}, but "
            f"{VERSION_FILE.name} pins {expected}; the download was removed."
        )
    return tarball


def ensure_sources(pins: dict, cache: Path) -> Path:
    source_root = cache / f"llvm-project-{pins['LLVM_VERSION']}"
    stamp = source_root / ".lighthouse-extracted"
    stamp_text = pins["SOURCE_TARBALL_SHA256"] + "\n" + "\n".join(EXTRACTED_PATHS) + "\n"
    if stamp.exists() and stamp.read_text() == stamp_text:
        return source_root

    tarball = ensure_tarball(pins, cache)
    top = pins["SOURCE_TARBALL"].removesuffix(".orig.tar.xz")
    log(f"extracting {', '.join(EXTRACTED_PATHS)} from {tarball.name}")
    staging = Path(tempfile.mkdtemp(dir=cache))
    try:
        subprocess.run(
            [
                "tar",
                "-xJf",
                str(tarball),
                "-C",
                str(staging),
                "--strip-components=1",
                *(f"{top}/{path}" for path in EXTRACTED_PATHS),
            ],
            check=True,
        )
        shutil.rmtree(source_root, ignore_errors=True)
        staging.rename(source_root)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    stamp.write_text(stamp_text)
    return source_root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=default_cache_dir(),
        help="where the tarball and the extracted sources are kept",
    )
    args = parser.parse_args()
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    print(ensure_sources(read_version_file(), args.cache_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
