#!/bin/sh
# Builds a PostgreSQL 15 image for the e2e tests from Debian bookworm packages,
# without pulling anything from an image registry:
#
#   e2e/postgres-image/build.sh IMAGE_TAG
#
# mmdebstrap writes a minimal bookworm root filesystem with postgresql-15 as a
# tarball to stdout and "docker import" turns it into IMAGE_TAG. The image
# behaves like the official "postgres" image for POSTGRES_USER,
# POSTGRES_PASSWORD and POSTGRES_DB (see docker-entrypoint.sh).
#
# Environment:
#   DEBIAN_MIRROR  Debian mirror (default: http://deb.debian.org/debian)
#
# Needs root (or sudo) for apt-get when mmdebstrap is missing, and access to
# the docker daemon. The harness (e2e/harness.PostgresImage) calls this script
# and tags the image with a hash of this directory, so edits here cause a rebuild.
set -eu

if [ "$#" -ne 1 ] || [ -z "$1" ]; then
	echo "usage: $0 IMAGE_TAG" >&2
	exit 2
fi
tag="$1"
case "$tag" in *:*) ;; *) tag="$tag:latest" ;; esac
here="$(cd "$(dirname "$0")" && pwd)"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

sudo=""
if [ "$(id -u)" != 0 ]; then
	sudo="sudo"
fi

if ! command -v mmdebstrap >/dev/null 2>&1; then
	echo "build.sh: installing mmdebstrap with apt-get" >&2
	$sudo apt-get update </dev/null >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends mmdebstrap </dev/null >&2
fi
command -v docker >/dev/null 2>&1 || { echo "build.sh: docker CLI not found" >&2; exit 1; }

echo "build.sh: building $tag from $mirror (bookworm, postgresql-15)" >&2

# Hooks run on the host with the chroot directory as $1.
#
# What the image does not need is kept out with dpkg path-exclude rules, written by an
# --essential-hook into the chroot's dpkg configuration, so that they apply when dpkg installs
# postgresql-15 and its dependencies. They are deliberately not given as --dpkgopt: mmdebstrap
# then also filters every Essential package through mmtarfilter (a Python process per package)
# while extracting them, which took ~40 s of a ~100 s build; the few such files of the Essential
# packages are deleted by the first customize hook instead.
# - no documentation, manual pages or translations
# - no LLVM JIT support (~150 MB: libLLVM, libz3, bitcode); without llvmjit.so the server
#   simply runs with JIT unavailable
excludes='path-exclude=/usr/share/man/*
path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/*/copyright
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
path-exclude=/usr/lib/*-linux-gnu/libLLVM*
path-exclude=/usr/lib/*-linux-gnu/libz3.*
path-exclude=/usr/lib/postgresql/15/lib/llvmjit*
path-exclude=/usr/lib/postgresql/15/lib/bitcode/*'
essential1="printf '%s\\n' '$excludes' >\"\$1/etc/dpkg/dpkg.cfg.d/99e2e-excludes\""
# - drop the "main" cluster the package postinst creates (we initdb at start), the dpkg rules
#   above, what they would have excluded from the Essential packages, and the locale sources
#   (C.UTF-8 is built into glibc)
# - install the entrypoint
customize1='rm -rf "$1/var/lib/postgresql/15" "$1/etc/postgresql/15" \
	"$1/etc/dpkg/dpkg.cfg.d/99e2e-excludes" \
	"$1"/usr/lib/postgresql/15/lib/llvmjit* "$1/usr/lib/postgresql/15/lib/bitcode" \
	"$1"/usr/lib/*-linux-gnu/libLLVM* "$1"/usr/lib/*-linux-gnu/libz3.* \
	"$1/usr/share/man" "$1/usr/share/info" "$1/usr/share/locale" "$1/usr/share/i18n" &&
	find "$1/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete'
customize2="install -m 0755 '$here/docker-entrypoint.sh' \"\$1/usr/local/bin/docker-entrypoint.sh\""
customize3='mkdir -p "$1/var/lib/postgresql/data" "$1/var/run/postgresql" && chroot "$1" chown postgres:postgres /var/lib/postgresql/data /var/run/postgresql && chmod 700 "$1/var/lib/postgresql/data"'

# mmdebstrap must not read sources from stdin (there is none in CI).
# force-unsafe-io: dpkg does not fsync every file it unpacks; the tree is thrown away if the
# build fails half-way anyway.
$sudo mmdebstrap \
	--variant=apt \
	--include=postgresql-15 \
	--aptopt='APT::Install-Recommends "false"' \
	--dpkgopt=force-unsafe-io \
	--essential-hook="$essential1" \
	--customize-hook="$customize1" \
	--customize-hook="$customize2" \
	--customize-hook="$customize3" \
	--format=tar \
	bookworm - "$mirror" </dev/null |
	docker import \
		--change 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change 'ENV PGDATA=/var/lib/postgresql/data' \
		--change 'ENV LANG=C.UTF-8' \
		--change 'EXPOSE 5432' \
		--change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
		--change 'CMD ["postgres"]' \
		- "$tag.import" >&2

# "docker import --change" cannot set STOPSIGNAL on older daemons, so add it
# with a one-line build (no context, nothing pulled). SIGINT = "fast shutdown"
# like the official image, so "docker stop" does not wait for idle clients.
printf 'FROM %s\nSTOPSIGNAL SIGINT\n' "$tag.import" | docker build -q -t "$tag" - >&2
docker rmi "$tag.import" >/dev/null

echo "build.sh: built $tag" >&2
