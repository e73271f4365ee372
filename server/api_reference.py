"""`python -m server.api_reference --write docs/api | --check docs/api`: writes the API reference
(web/api_reference.py) of the server as it runs, every domain listed in server/domains.py, or says whether the
committed pages are stale."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from server.domains import HANDLERS
from web.api_reference import COMMAND, build, pages, stale, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.api_reference", description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", metavar="DIR", type=Path, help="write the pages into DIR")
    mode.add_argument("--check", metavar="DIR", type=Path, help="exit 1 when DIR differs from a fresh generation")
    arguments = parser.parse_args(argv)
    made = pages(build(HANDLERS))
    if arguments.write is not None:
        write(arguments.write, made)
        return 0
    differ = stale(arguments.check, made)
    if differ:
        print(f"{arguments.check} is stale ({', '.join(differ)}); regenerate it: {COMMAND}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
