"""Print this machine's Debian bookworm apt sources as one-line ``deb URI SUITE COMPONENTS`` entries, for
mmdebstrap (docker/image.sh builds the image's base from the mirror the machine already uses).

Read: /etc/apt/sources.list, /etc/apt/sources.list.d/*.list (one-line) and *.sources (deb822). Kept: ``deb``
entries for bookworm, bookworm-updates and bookworm-security whose URI is a Debian archive (ends in
/debian or /debian-security): a third-party repository on the machine needs keys the base would not have.
$NOS_DEBIAN_MIRROR, when set, is printed instead (one URI: ``deb URI bookworm main``). Nothing found:
Debian's own http://deb.debian.org/debian.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SUITES = ("bookworm", "bookworm-updates", "bookworm-security")
DEFAULT = "http://deb.debian.org/debian"


def debian(uri: str) -> bool:
    return uri.rstrip("/").endswith(("/debian", "/debian-security"))


def one_line(text: str) -> list[tuple[str, str, str]]:
    out = []
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) >= 4 and words[0] == "deb":
            if words[1].startswith("["):  # options: [signed-by=... arch=...]
                while words and not words[1].endswith("]"):
                    words.pop(1)
                words.pop(1)
            out.append((words[1], words[2], " ".join(words[3:])))
    return out


def deb822(text: str) -> list[tuple[str, str, str]]:
    out = []
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            if line.strip().startswith("#") or ":" not in line or line[:1].isspace():
                continue
            key, value = line.split(":", 1)
            fields[key.strip().lower()] = value.strip()
        if fields.get("enabled", "yes").lower() == "no" or "deb" not in fields.get("types", "").split():
            continue
        for uri in fields.get("uris", "").split():
            for suite in fields.get("suites", "").split():
                out.append((uri, suite, fields.get("components", "main")))
    return out


def sources(root: Path = Path("/etc/apt")) -> list[str]:
    entries = []
    files = [root / "sources.list", *sorted((root / "sources.list.d").glob("*.list"))]
    for path in files:
        if path.is_file():
            entries += one_line(path.read_text())
    for path in sorted((root / "sources.list.d").glob("*.sources")):
        entries += deb822(path.read_text())
    seen, lines = set(), []
    for uri, suite, components in entries:
        line = f"deb {uri} {suite} {components}"
        if suite in SUITES and debian(uri) and line not in seen:
            seen.add(line)
            lines.append(line)
    return lines


def main() -> int:
    mirror = os.environ.get("NOS_DEBIAN_MIRROR")
    lines = [f"deb {mirror} bookworm main"] if mirror else sources() or [f"deb {DEFAULT} bookworm main"]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
