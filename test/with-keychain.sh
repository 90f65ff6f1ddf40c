#!/usr/bin/env bash
# Runs a command with a real, unlocked Secret Service keychain (gnome-keyring in its own D-Bus
# session), so keychain tests use the real thing. Reuses a session that already exists.
set -euo pipefail
if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] && [ -n "${WATCHDESK_KEYRING_READY:-}" ]; then
  exec "$@"
fi
if ! command -v dbus-run-session >/dev/null || ! command -v gnome-keyring-daemon >/dev/null; then
  echo "test/with-keychain.sh: needs dbus-run-session and gnome-keyring-daemon (apt-get install -y dbus gnome-keyring)" >&2
  exit 1
fi
export WATCHDESK_KEYRING_READY=1
exec dbus-run-session -- bash -c 'echo -n watchdesk-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec "$@"' bash "$@"
