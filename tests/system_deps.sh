#!/bin/sh
# Debian packages the test suite needs: a real Chromium for the browser tests (with a Chinese
# font, so screenshots of the Chinese pages are readable), OpenSCAD to render the printable models.
# Installs them when run as root; otherwise says exactly what to install.
need=""
command -v chromium >/dev/null 2>&1 || need="$need chromium"
command -v openscad >/dev/null 2>&1 || need="$need openscad"
[ -f /usr/share/fonts/truetype/wqy/wqy-zenhei.ttc ] || need="$need fonts-wqy-zenhei"
[ -z "$need" ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian packages:$need"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
else
    echo "The browser tests need Debian packages:$need"
    echo "Install them with: sudo apt-get install$need"
    exit 1
fi
