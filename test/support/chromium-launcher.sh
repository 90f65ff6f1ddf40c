#!/usr/bin/env bash
# Runs Chromium for the tests with every --disable-features (and --enable-features) it is given
# merged into one: Chromium keeps only the last of each, and Playwright passes its own list, so
# the e2e project's additions (test/support/chromium-server.ts) would otherwise replace it.
set -euo pipefail
real=${WATCHDESK_CHROMIUM_BINARY:?test/support/chromium-launcher.sh: set WATCHDESK_CHROMIUM_BINARY to the Chromium to run}
args=()
disable=()
enable=()
for arg in "$@"; do
  case $arg in
    --disable-features=*) disable+=("${arg#--disable-features=}") ;;
    --enable-features=*) enable+=("${arg#--enable-features=}") ;;
    *) args+=("$arg") ;;
  esac
done
joined() {
  local IFS=,
  echo "$*"
}
if [ ${#disable[@]} -gt 0 ]; then args+=("--disable-features=$(joined "${disable[@]}")"); fi
if [ ${#enable[@]} -gt 0 ]; then args+=("--enable-features=$(joined "${enable[@]}")"); fi
exec "$real" "${args[@]}"
