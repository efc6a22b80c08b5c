"""`python -m lighthouse --cmake-dir`: where lighthouse's CMake package is, for
projects that build dialects against this installation."""

import argparse
import os

import lighthouse


def main():
    parser = argparse.ArgumentParser(prog="python -m lighthouse", description=__doc__)
    parser.add_argument(
        "--cmake-dir",
        action="store_true",
        help="print the folder of LighthouseConfig.cmake (for Lighthouse_DIR)",
    )
    parser.add_argument("--version", action="store_true", help="print lighthouse's version")
    args = parser.parse_args()
    if args.cmake_dir:
        print(os.path.join(os.path.dirname(lighthouse.__file__), "cmake"))
    elif args.version:
        print(lighthouse.__version__)
    else:
        parser.print_help()


if __name__ == "__main__":
    main()
