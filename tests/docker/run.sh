#!/usr/bin/env bash
# make docker-test: the docker-compose switch and lab, end to end, on this machine (README "docker-compose").
#
#  1. apt: docker.io (dockerd 20.10, iptables), docker-compose (1.29, compose v1), mmdebstrap, python3-venv;
#  2. a private dockerd with its own --data-root, --exec-root, --pidfile and socket under a scratch directory
#     ($NOS_DOCKER_WORK, default a new /tmp/nos-docker-test.XXXXXX), started with --iptables=false
#     --ip-forward=false --bridge=none: the switch's containers talk over a shared unix socket and publish
#     their ports on loopback through docker-proxy, which needs neither forwarding nor NAT. The iptables
#     FORWARD policy and /proc/sys/net/ipv4/ip_forward are recorded first and put back on exit all the same
#     (on failure too), with any DOCKER chains and br-* bridges that appeared;
#  3. docker/image.sh: the Debian base (mmdebstrap), the wheelhouse, the image;
#  4. python -m tests.docker.driver: the checks (its docstring lists them);
#  5. on exit: every container of this dockerd removed, dockerd stopped, iptables and ip_forward restored,
#     the scratch directory removed (NOS_DOCKER_KEEP=1 keeps it, and then the base image is reused).
# A machine where dockerd cannot start fails here, saying why (its log): nothing is skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
START=$(date +%s)
say() { printf '%s docker-test: %s\n' "$(date +%H:%M:%S)" "$*"; }
fail() { say "FAILED: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (it installs packages with apt and starts dockerd by hand)"

# -- 1. packages ------------------------------------------------------------------------------------
need=()
for pair in dockerd:docker.io docker-compose:docker-compose mmdebstrap:mmdebstrap iptables:iptables; do
  command -v "${pair%%:*}" >/dev/null || need+=("${pair##*:}")
done
[ -x /usr/bin/docker ] || need+=(docker.io)
/usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null || need+=(python3-venv)
mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u | grep .)
if [ ${#need[@]} -gt 0 ]; then
  say "apt-get install ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "${need[@]}" >/tmp/nos-docker-apt.log 2>&1 || {
    apt-get update -q >>/tmp/nos-docker-apt.log 2>&1
    apt-get install -y -q --no-install-recommends "${need[@]}" >>/tmp/nos-docker-apt.log 2>&1 \
      || { tail -20 /tmp/nos-docker-apt.log >&2; fail "apt-get install ${need[*]} failed (log above)"; }
  }
fi
# docker.io's client, whatever else is first on PATH (a newer client elsewhere may not speak to 20.10)
export DOCKER=/usr/bin/docker

# -- 2. dockerd, and what it could change -----------------------------------------------------------
WORK=${NOS_DOCKER_WORK:-$(mktemp -d /tmp/nos-docker-test.XXXXXX)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
FORWARD_POLICY=$(iptables -S FORWARD | head -1 | awk '{print $3}')
IP_FORWARD=$(cat /proc/sys/net/ipv4/ip_forward)
BRIDGES_BEFORE=$(ip -o link show type bridge 2>/dev/null | awk -F': ' '{print $2}' | sort | tr '\n' ' ')
DOCKERD_PID=

restore() {
  local rc=$? chain
  trap - EXIT INT TERM
  set +e  # put back everything that can be put back
  if [ -n "$DOCKERD_PID" ] && kill -0 "$DOCKERD_PID" 2>/dev/null; then
    ids=$("$DOCKER" ps -aq 2>/dev/null || true)
    [ -z "$ids" ] || "$DOCKER" rm -f $ids >/dev/null 2>&1 || true
    "$DOCKER" network prune -f >/dev/null 2>&1 || true
    kill "$DOCKERD_PID" 2>/dev/null || true
    for _ in $(seq 300); do kill -0 "$DOCKERD_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$DOCKERD_PID" 2>/dev/null; then say "dockerd did not stop in 30 s: SIGKILL"; kill -9 "$DOCKERD_PID" || true; fi
    wait "$DOCKERD_PID" 2>/dev/null || true
  fi
  iptables -P FORWARD "$FORWARD_POLICY"
  echo "$IP_FORWARD" >/proc/sys/net/ipv4/ip_forward
  for table in filter nat; do  # what dockerd adds when it does manage iptables (it should not here)
    iptables -t "$table" -S 2>/dev/null | awk '/^-A .* -j DOCKER/' | sed 's/^-A/-D/' | while read -r rule; do
      iptables -t "$table" $rule 2>/dev/null || true
    done
    for chain in $(iptables -t "$table" -S 2>/dev/null | awk '/^-N DOCKER/{print $2}'); do
      iptables -t "$table" -F "$chain" 2>/dev/null || true
      iptables -t "$table" -X "$chain" 2>/dev/null || true
    done
  done
  for bridge in $(ip -o link show type bridge 2>/dev/null | awk -F': ' '{print $2}'); do
    case " $BRIDGES_BEFORE " in *" $bridge "*) ;; *) case "$bridge" in br-*|docker0) ip link del "$bridge" || true;; esac;; esac
  done
  grep " $WORK/" /proc/mounts | awk '{print $2}' | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
  if [ "${NOS_DOCKER_KEEP:-0}" != 1 ]; then rm -rf "$WORK"; fi
  say "dockerd stopped; iptables FORWARD $(iptables -S FORWARD | head -1 | awk '{print $3}') (was $FORWARD_POLICY)," \
      "ip_forward $(cat /proc/sys/net/ipv4/ip_forward) (was $IP_FORWARD)"
  if [ "$rc" = 0 ]; then say "passed in $(( $(date +%s) - START )) s"; else say "FAILED (status $rc) after $(( $(date +%s) - START )) s"; fi
  exit "$rc"
}
trap restore EXIT
trap 'exit 130' INT TERM

say "dockerd (data root $WORK/data; iptables FORWARD $FORWARD_POLICY, ip_forward $IP_FORWARD before)"
export DOCKER_HOST="unix://$WORK/docker.sock"
dockerd --data-root "$WORK/data" --exec-root "$WORK/exec" --pidfile "$WORK/dockerd.pid" -H "$DOCKER_HOST" \
  --iptables=false --ip-forward=false --bridge=none --log-level=warn >"$WORK/dockerd.log" 2>&1 &
DOCKERD_PID=$!
for _ in $(seq 600); do
  "$DOCKER" version >/dev/null 2>&1 && break
  kill -0 "$DOCKERD_PID" 2>/dev/null || break
  sleep 0.1
done
if ! "$DOCKER" version >/dev/null 2>&1; then
  tail -25 "$WORK/dockerd.log" >&2 || true
  fail "dockerd could not start on this machine (its log above): the docker-compose switch cannot be tested here"
fi
say "dockerd $("$DOCKER" version -f '{{.Server.Version}}') up (pid $DOCKERD_PID)"

# -- 3. the image -------------------------------------------------------------------------------------
docker/image.sh

# -- 4. the checks ------------------------------------------------------------------------------------
.venv/bin/python -m tests.docker.driver --work "$WORK/run" "$@"
