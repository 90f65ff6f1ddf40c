#!/usr/bin/env bash
# Renders the app icon from build/icon.svg for every installer (needs ImageMagick):
#   icon.png (1024, electron-builder derives the macOS .icns from it), icons/NxN.png (Linux), icon.ico (Windows).
set -euo pipefail
cd "$(dirname "$0")"
render() { convert -background none -density 384 icon.svg -resize "$1x$1" "$2"; }
render 1024 icon.png
for size in 16 32 48 64 128 256 512; do render "$size" "icons/${size}x${size}.png"; done
convert icons/16x16.png icons/32x32.png icons/48x48.png icons/64x64.png icons/128x128.png icons/256x256.png icon.ico
echo "icons written to $(pwd)"
