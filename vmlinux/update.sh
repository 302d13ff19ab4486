#!/usr/bin/env bash
# Regenerates vmlinux/ARCH/vmlinux.h, the kernel types the BPF programs
# are compiled against (libbpf-tools' convention: one committed header
# per architecture, so that a build needs no kernel with BTF; CO-RE
# relocates the objects to the running kernel's layout at load).
#
#   vmlinux/update.sh x86            this host's /sys/kernel/btf/vmlinux
#   vmlinux/update.sh x86 FILE       a raw BTF file (or vmlinux ELF)
#   vmlinux/update.sh arm64 [PKG]    Debian 12's arm64 kernel package PKG
#                                    (default: what linux-image-arm64
#                                    depends on), downloaded with apt
#                                    without touching dpkg's architectures
#
# Each header starts with a comment naming the kernel it came from.
# Needs bpftool and python3; arm64 also needs apt-get and network access.
set -euo pipefail
cd "$(dirname "$0")"
arch=${1:?usage: vmlinux/update.sh x86|arm64 [SOURCE]}
src=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# extract_btf IMAGE OUT: the raw .BTF section of an uncompressed kernel
# Image, found by its header: magic 0xeb9f (bytes 9f eb), version 1,
# flags 0, hdr_len 24, then type_off, type_len, str_off, str_len; the
# blob is 24 + the furthest of type_off + type_len and str_off + str_len.
# The first candidate whose string section starts with a NUL (BTF's
# empty name) and bpftool can read wins.
extract_btf() {
	python3 - "$1" "$2" <<'PY'
import struct, subprocess, sys
img = open(sys.argv[1], 'rb').read()
at = 0
while True:
    at = img.find(b'\x9f\xeb\x01\x00\x18\x00\x00\x00', at)
    if at < 0:
        sys.exit('no BTF header in ' + sys.argv[1])
    type_off, type_len, str_off, str_len = struct.unpack_from('<4I', img, at + 8)
    size = 24 + max(type_off + type_len, str_off + str_len)
    if type_len and str_len and at + size <= len(img) and img[at + 24 + str_off] == 0:
        open(sys.argv[2], 'wb').write(img[at:at + size])
        if subprocess.run(['bpftool', 'btf', 'dump', 'file', sys.argv[2]],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
            print('%d bytes of BTF at offset %#x' % (size, at), file=sys.stderr)
            sys.exit(0)
    at += 1
PY
}

case $arch in
x86)
	btf=${src:-/sys/kernel/btf/vmlinux}
	[ -r "$btf" ] || { echo "$btf: not readable (a kernel with BTF?)" >&2; exit 1; }
	if [ -z "$src" ]; then
		[ "$(uname -m)" = x86_64 ] || { echo "not an x86_64 host: give a BTF file" >&2; exit 1; }
		origin="this host's /sys/kernel/btf/vmlinux, kernel $(uname -r): $(cat /proc/version)"
	else
		origin="$src"
	fi
	;;
arm64)
	lists=$tmp/lists
	mkdir -p "$lists/partial" "$tmp/cache/archives/partial"
	apt=(-oAPT::Architecture=arm64 -oAPT::Architectures=arm64
		-oDir::State::Lists="$lists" -oDir::Cache="$tmp/cache"
		-oDir::State::status=/dev/null -oDebug::NoLocking=1
		-oAPT::Sandbox::User=root)
	apt-get "${apt[@]}" -qq update
	pkg=${src:-$(apt-cache "${apt[@]}" depends linux-image-arm64 |
		sed -n 's/^ *Depends: \(linux-image-[0-9].*-arm64\)$/\1/p' | head -1)}
	[ -n "$pkg" ] || { echo "cannot resolve linux-image-arm64" >&2; exit 1; }
	(cd "$tmp" && apt-get "${apt[@]}" -qq download "$pkg")
	deb=$(ls "$tmp"/*.deb)
	dpkg-deb -x "$deb" "$tmp/root"
	vmlinuz=$(ls "$tmp"/root/boot/vmlinuz-*)
	# The signed package's vmlinuz is the raw Image (an EFI binary);
	# others gzip it.
	if [ "$(head -c 2 "$vmlinuz" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
		gzip -dc "$vmlinuz" >"$tmp/Image"
	else
		cp "$vmlinuz" "$tmp/Image"
	fi
	btf=$tmp/vmlinux.btf
	extract_btf "$tmp/Image" "$btf"
	origin="Debian package $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version) ($(basename "$vmlinuz"))"
	;;
*)
	echo "unknown architecture $arch: x86 or arm64" >&2
	exit 1
	;;
esac

mkdir -p "$arch"
{
	echo "/* vmlinux.h for $arch, by vmlinux/update.sh from $origin */"
	bpftool btf dump file "$btf" format c
} >"$arch/vmlinux.h.tmp"
mv "$arch/vmlinux.h.tmp" "$arch/vmlinux.h"
echo "vmlinux/$arch/vmlinux.h: $(wc -l <"$arch/vmlinux.h") lines, from $origin"
