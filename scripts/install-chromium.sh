#!/usr/bin/env bash
# Headless Chromium for the browser tests of the HTML report and viewer (tests/report).
# Idempotent, and never fatal: without a browser those tests skip and say why.
#   - nothing to do when /usr/bin/chromium exists;
#   - as root on Debian/Ubuntu: apt-get update && apt-get install -y chromium;
#   - otherwise: print how to install it and go on.
set -u
CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "note: $CHROMIUM not found and cannot be installed here (needs root and apt-get);" \
         "the browser tests will be skipped. Install it with: sudo apt-get install -y chromium" >&2
    exit 0
fi
echo "==> installing chromium (Debian package) for the browser tests"
if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq \
       && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
       >/dev/null; }; then
    echo "note: could not install chromium; the browser tests will be skipped" >&2
fi
exit 0
