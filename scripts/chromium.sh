#!/usr/bin/env bash
# Installs what the browser tests need when it is missing: Debian's Chromium (never
# `npx playwright install`, which downloads its own browser and fails here) and a small CJK font,
# without which the Chinese pages' screenshots show empty boxes instead of characters.
set -euo pipefail
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
PACKAGES=()
[ -x "$CHROMIUM" ] || PACKAGES+=(chromium)
if ! fc-list :lang=zh 2>/dev/null | grep -q .; then PACKAGES+=(fonts-wqy-microhei); fi
[ ${#PACKAGES[@]} -eq 0 ] && exit 0

echo "== installing for the browser tests: ${PACKAGES[*]}"
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
[ -x "$CHROMIUM" ] || { echo "chromium was not installed at $CHROMIUM" >&2; exit 1; }
