#!/bin/sh
# build.sh OUT VERSION ARCH EPOCH BINDIR: builds
# OUT/git-durable_VERSION_ARCH.deb with dpkg-deb from the binaries in
# BINDIR (make deb builds them, static), the man
# pages, the systemd units and timers (their ExecStart in /usr/bin), the
# logrotate file and the alert rules. Every file is root's, dated EPOCH:
# two builds of one commit give the same bytes.
set -eu
out=$1 version=$2 arch=$3 epoch=$4 bindir=$5
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
pkg=$root/pkg
install -d "$pkg/DEBIAN" "$pkg/usr/bin" "$pkg/usr/lib/git-core" "$pkg/usr/share/man/man1" \
	"$pkg/lib/systemd/system" "$pkg/etc/logrotate.d" "$pkg/usr/share/git-durable/prometheus" "$pkg/usr/share/doc/git-durable"
for c in git-remote-durable git-unpack-durable; do
	install -m 0755 "$bindir/$c" "$pkg/usr/bin/$c"
	ln -s "../../bin/$c" "$pkg/usr/lib/git-core/$c"
	gzip -9n <"docs/$c.1" >"$pkg/usr/share/man/man1/$c.1.gz"
done
for u in docs/systemd/*.service docs/systemd/*.timer; do
	sed 's#/usr/local/bin/#/usr/bin/#g' "$u" >"$pkg/lib/systemd/system/$(basename "$u")"
done
sed 's#^\# Install: .*#\# Installed by the git-durable package.#' docs/logrotate/git-durable >"$pkg/etc/logrotate.d/git-durable"
cp docs/prometheus/git-durable.rules.yml docs/prometheus/git-durable.rules.test.yml "$pkg/usr/share/git-durable/prometheus/"
cp LICENSE "$pkg/usr/share/doc/git-durable/copyright"
gzip -9n <CHANGELOG.md >"$pkg/usr/share/doc/git-durable/changelog.gz"
cp README.md "$pkg/usr/share/doc/git-durable/README.md"
for s in postinst prerm postrm; do install -m 0755 "packaging/deb/$s" "$pkg/DEBIAN/$s"; done
install -m 0644 packaging/deb/conffiles "$pkg/DEBIAN/conffiles"
size=$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" packaging/deb/control.in >"$pkg/DEBIAN/control"
find "$pkg" -type f ! -path "$pkg/DEBIAN/*" -printf '%P\0' | sort -z | (cd "$pkg" && xargs -0 md5sum) >"$pkg/DEBIAN/md5sums"
chmod 0644 "$pkg/DEBIAN/control" "$pkg/DEBIAN/md5sums"
find "$pkg" -type f ! -perm -u+x -exec chmod 0644 {} +
find "$pkg" -type d -exec chmod 0755 {} +
find "$pkg" -exec touch -h -d "@$epoch" {} +
mkdir -p "$out"
SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zxz --build "$pkg" "$out/git-durable_${version}_${arch}.deb" >/dev/null
echo "$out/git-durable_${version}_${arch}.deb"
