#!/usr/bin/env bash
# Build nos-sim:latest, the image of every container of a docker-compose switch, without a registry:
#   1. the base (skipped when it exists; --rebuild-base forces it): Debian bookworm from this machine's apt
#      mirror (docker/apt_sources.py) by mmdebstrap --variant=minbase, with python3, python3-venv,
#      redis-server and redis-tools, then `docker import` as nos-base:bookworm (about 40 s);
#   2. the wheelhouse: the project and its dependencies as wheels built on the host (`pip wheel` in a venv
#      of the host's /usr/bin/python3, the same Debian Python as the image's; pinned to the versions of the
#      host's .venv, which `make test` tested), in build/docker/wheelhouse;
#   3. `docker build --network none` of docker/Dockerfile from the repository root (.dockerignore lets in
#      only the wheelhouse and configs/).
# Uses $DOCKER (default docker) against whatever daemon DOCKER_HOST names; $PY is the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
DOCKER=${DOCKER:-docker}
PY=${PY:-.venv/bin/python}
WHEEL_PY=${NOS_WHEEL_PYTHON:-/usr/bin/python3}
BASE=${NOS_BASE_IMAGE:-nos-base:bookworm}
IMAGE=${NOS_IMAGE:-nos-sim:latest}
OUT=build/docker
PACKAGES=python3,python3-venv,redis-server,redis-tools
step() { printf '%s image: %s\n' "$(date +%H:%M:%S)" "$*"; }

mkdir -p "$OUT"
if [ "${1:-}" = --rebuild-base ] || ! "$DOCKER" image inspect "$BASE" >/dev/null 2>&1; then
  command -v mmdebstrap >/dev/null || { echo "image: mmdebstrap is missing (apt-get install mmdebstrap)" >&2; exit 1; }
  mapfile -t MIRRORS < <(python3 docker/apt_sources.py)
  step "base $BASE: mmdebstrap --variant=minbase bookworm from ${MIRRORS[*]}"
  rm -f "$OUT/rootfs.tar"
  mmdebstrap --quiet --variant=minbase --include="$PACKAGES" \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --aptopt='Acquire::Retries "3"' \
    bookworm "$OUT/rootfs.tar" "${MIRRORS[@]}"
  "$DOCKER" import --message "mmdebstrap --variant=minbase bookworm + $PACKAGES" "$OUT/rootfs.tar" "$BASE" >/dev/null
  rm -f "$OUT/rootfs.tar"
fi

# The wheels are resolved by the same Python the image runs (Debian's python3 on a bookworm host): requirement
# markers depend on it (redis needs async-timeout below Python 3.11.3, which bookworm's 3.11.2 is).
image_py=$("$DOCKER" run --rm --network none "$BASE" python3 -c 'import platform; print(platform.python_version())')
wheel_py_version=$("$WHEEL_PY" -c 'import platform; print(platform.python_version())' 2>/dev/null || echo none)
if [ "$image_py" != "$wheel_py_version" ]; then
  echo "image: the image runs Python $image_py but $WHEEL_PY is $wheel_py_version: set NOS_WHEEL_PYTHON to a" \
       "Python $image_py with venv (on a Debian bookworm host: /usr/bin/python3, package python3-venv)" >&2
  exit 1
fi
step "wheelhouse: pip wheel . with Python $image_py, pinned to the host venv's versions"
rm -rf "$OUT/wheelhouse" "$OUT/wheel-venv" build/lib  # build/lib: setuptools keeps removed modules there
"$PY" -m pip freeze --exclude-editable >"$OUT/constraints.txt"
"$WHEEL_PY" -m venv "$OUT/wheel-venv"
"$OUT/wheel-venv/bin/pip" wheel --quiet --disable-pip-version-check -c "$OUT/constraints.txt" \
  -w "$OUT/wheelhouse" . 2>&1 | { grep -v "^WARNING: Location '" || true; }
rm -rf "$OUT/wheel-venv"
[ -e "$OUT/wheelhouse/nos_sim-"*.whl ] || { echo "image: pip wheel made no nos_sim wheel" >&2; exit 1; }

step "image $IMAGE: docker build --network none"
"$DOCKER" build --quiet --network none --build-arg "BASE=$BASE" -f docker/Dockerfile -t "$IMAGE" . >/dev/null
step "done: $("$DOCKER" image inspect -f '{{.Id}} {{.Size}}' "$IMAGE")"
