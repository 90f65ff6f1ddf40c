#!/bin/sh
# The container's entrypoint (deploy/Containerfile): a fresh named volume at $WATCHDESK_DATA_DIR is
# owned by root, so as root it hands the data dir to $WATCHDESK_UID:$WATCHDESK_GID, then drops to
# that user for good (setpriv: no capabilities, no supplementary groups) and runs the relay from
# the working directory (the image's WORKDIR, /app).
set -eu
data="${WATCHDESK_DATA_DIR:-/data}"
uid="${WATCHDESK_UID:-1000}"
gid="${WATCHDESK_GID:-1000}"
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$data"
  if [ "$(stat -c %u:%g "$data")" != "$uid:$gid" ]; then chown -R "$uid:$gid" "$data"; fi
  chmod 0700 "$data"
  exec setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all --bounding-set=-all \
    env HOME="$data" node bin/watchdesk relay "$@"
fi
exec node bin/watchdesk relay "$@"
