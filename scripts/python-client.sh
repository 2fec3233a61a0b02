#!/usr/bin/env bash
# Tests the Python client library (clients/python) on the oldest and the newest Python it supports:
# for each, a virtual environment under .test-data/py3.N with the package and its test extras from
# PyPI (remade only when clients/python/pyproject.toml changes), then the unit tests, the
# integration tests against a real Till (scripts/serve-for-clients.ts, started by the pytest
# session), mypy --strict and pyright.
#
# The interpreters come from pyenv (3.9.18 and 3.13.0; TILL_PYTHONS overrides the list). A version
# pyenv does not have yet is installed with `pyenv install` (this compiles it: minutes, once).
# Integration tests need TEST_DATABASE_URL (npm test exports it); without it this script starts the
# embedded PostgreSQL of scripts/test-db.ts itself, and stops it at the end.
#   bash scripts/python-client.sh                 # everything
#   bash scripts/python-client.sh -k webhook      # extra arguments go to pytest
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."

TEST_DATA="${TEST_DATA:-$PWD/.test-data}"
PKG="$PWD/clients/python"
PYTHONS="${TILL_PYTHONS:-3.9.18 3.13.0}"
HASH="$(sha256sum "$PKG/pyproject.toml" | cut -c1-16)"

python_for() {
  local version="$1" root
  root="$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"
  if [ ! -x "$root/versions/$version/bin/python" ]; then
    command -v pyenv >/dev/null || { echo "Python $version is needed and pyenv is not installed" >&2; exit 1; }
    echo "== pyenv install $version (not on this machine yet: it is compiled once, this takes minutes)" >&2
    pyenv install --skip-existing "$version" >&2
  fi
  echo "$root/versions/$version/bin/python"
}

# Sets VENV; the environment is remade when the pyproject's hash differs from the one it was made with.
make_venv() {
  local version="$1" python
  python="$(python_for "$version")"
  VENV="$TEST_DATA/py${version%.*}"
  if [ "$(cat "$VENV/.pyproject-hash" 2>/dev/null)" != "$HASH" ]; then
    echo "== making $VENV (Python $version) with clients/python[test]"
    rm -rf "$VENV"
    "$python" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "$PKG[test]"
    echo "$HASH" > "$VENV/.pyproject-hash"
  fi
}

STARTED_DB=""
cleanup() {
  if [ -n "$STARTED_DB" ]; then npx tsx scripts/test-db.ts stop "$TEST_DATA/embedded" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT
if [ -z "${TEST_DATABASE_URL:-}" ]; then
  echo "== starting the embedded PostgreSQL for the integration tests"
  TEST_DATABASE_URL="$(npx tsx scripts/test-db.ts embedded "$TEST_DATA/embedded")"
  export TEST_DATABASE_URL
  STARTED_DB=1
fi

# One Python version's checks: pytest, with mypy --strict and pyright beside it (the type checkers
# need the CPU while pytest mostly waits on sockets).
check() {
  local version="$1" venv="$2" status=0 typecheck
  (
    cd "$PKG"
    "$venv/bin/python" -m mypy --strict --cache-dir "$venv/.mypy_cache" --python-executable "$venv/bin/python"
    "$venv/bin/pyright" --project . --pythonpath "$venv/bin/python" --pythonversion "${version%.*}"
  ) > "$venv/typecheck.log" 2>&1 &
  typecheck=$!
  (cd "$PKG" && "$venv/bin/python" -m pytest -q -p no:cacheprovider "${PYTEST_ARGS[@]}") || status=$?
  wait "$typecheck" || status=$?
  cat "$venv/typecheck.log"
  return "$status"
}

PYTEST_ARGS=("$@")
VENVS=()
for version in $PYTHONS; do
  make_venv "$version"
  VENVS+=("$VENV")
done

# The versions run side by side, each with its own Till (and database); their output is shown in order.
PIDS=()
i=0
for version in $PYTHONS; do
  check "$version" "${VENVS[$i]}" > "${VENVS[$i]}/check.log" 2>&1 &
  PIDS+=($!)
  i=$((i + 1))
done
failed=0
i=0
for version in $PYTHONS; do
  status=0
  wait "${PIDS[$i]}" || status=$?
  echo "== Python client on Python $version: pytest, mypy --strict, pyright"
  cat "${VENVS[$i]}/check.log"
  if [ "$status" -ne 0 ]; then echo "== Python client on Python $version: FAILED" >&2; failed=1; fi
  i=$((i + 1))
done
exit "$failed"
