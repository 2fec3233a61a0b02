#!/usr/bin/env bash
# Prints the Python interpreter of a virtual environment holding aiosmtpd, the SMTP server the mail
# tests start on loopback (test/mail/smtp-sink.py). Made once under $TILL_CACHE (default
# ~/.cache/till, outside the clone), remade when AIOSMTPD_VERSION changes.
#   bash scripts/smtp-sink.sh     # → /home/…/.cache/till/aiosmtpd-1.4.6/bin/python
set -euo pipefail
AIOSMTPD_VERSION=1.4.6
VENV="${TILL_CACHE:-$HOME/.cache/till}/aiosmtpd-$AIOSMTPD_VERSION"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import aiosmtpd' 2>/dev/null; then
  echo "== installing aiosmtpd $AIOSMTPD_VERSION into $VENV" >&2
  rm -rf "$VENV.tmp"
  python3 -m venv "$VENV.tmp"
  "$VENV.tmp/bin/pip" install --quiet --disable-pip-version-check "aiosmtpd==$AIOSMTPD_VERSION" >&2
  rm -rf "$VENV"
  mv "$VENV.tmp" "$VENV"
fi
echo "$VENV/bin/python"
