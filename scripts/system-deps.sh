#!/usr/bin/env bash
# System packages the test suite needs (bubblewrap for the shell sandbox tests; iproute2 and
# util-linux for the private network namespaces the MCP peer tests run in).
# Installs them with apt-get when missing and running as root; otherwise says what to install.
set -euo pipefail
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v git >/dev/null 2>&1 || missing+=(git)
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
command -v unshare >/dev/null 2>&1 || missing+=(util-linux)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing system packages: ${missing[*]}" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "the tests need these system packages: ${missing[*]} (e.g. sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
