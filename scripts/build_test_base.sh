#!/bin/sh
# The container tests' base image, built without any image registry: Debian bookworm from
# its package mirror (debootstrap), with what the Dockerfile's PYTHON_IMAGE must offer
# (python3, python3-venv, ca-certificates). Writes the root file system as a tar to $1;
# import it with `docker import FILE NAME`. Needs root and debootstrap.
#
# The tests cache the result keyed by this file's hash: change this file to rebuild it.
set -eu
out=$1
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
    bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }
rm -rf "$work"/rootfs/var/cache/apt/archives/*.deb "$work"/rootfs/var/lib/apt/lists/*
tar -C "$work/rootfs" -c . >"$out.tmp"
mv "$out.tmp" "$out"
