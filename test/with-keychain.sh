#!/usr/bin/env bash
# Runs a command with a real, unlocked Secret Service keychain: gnome-keyring in a private D-Bus
# session, keeping its keyring files in a throwaway folder so the operator's own login keyring is
# never touched (and its password never matters).
set -euo pipefail
if [ -n "${WATCHDESK_KEYRING_READY:-}" ] && [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  exec "$@"
fi
if ! command -v dbus-run-session >/dev/null || ! command -v gnome-keyring-daemon >/dev/null; then
  echo "test/with-keychain.sh: needs dbus-run-session and gnome-keyring-daemon (apt-get install -y dbus gnome-keyring)" >&2
  exit 1
fi
keyring_home=$(mktemp -d "${TMPDIR:-/tmp}/watchdesk-keyring.XXXXXX")
trap 'rm -rf "$keyring_home"' EXIT
export WATCHDESK_KEYRING_READY=1 WATCHDESK_KEYRING_HOME="$keyring_home"
dbus-run-session -- bash -c '
  echo -n watchdesk-test | XDG_DATA_HOME="$WATCHDESK_KEYRING_HOME" gnome-keyring-daemon --unlock --components=secrets >/dev/null
  "$@"' bash "$@" 2> >(grep -v -e "Failed to set fd limit" -e "SystemPrompter" -e "cannot open display" >&2)
