# fake-kernel-lib.sh - for the e2e tests of kernel trees without a real
# kernel (t2130, t2140): make_fake_kernel_tree makes ./tree, a repository
# perfbot takes for a Linux kernel tree (Kbuild, Kconfig, a Makefile with
# VERSION and PATCHLEVEL, kernel/ mm/ init/) whose Makefile plays kbuild's
# part (tinyconfig, olddefconfig, bzImage: a file with a bzImage setup
# header carrying "speed=" the tree's kernel/speed, "-panic" when
# kernel/panic exists, and the same in its release: 6.1.0-fast,
# 6.1.0-slow-panic), commits c1..c8 in C[1..8]: c3 does not build, c5
# makes the kernel slow, c7's kernel panics at boot; and ./fake-qemu, a
# stand-in for QEMU that plays the guest's /init on the host (t2110's),
# with FAKE_MS=100, or 115 on a slow kernel, for the job.  Source it after
# lib.sh, in $SANDBOX.
make_fake_kernel_tree() {
# ---- the tree ----
mkdir -p tree/kernel tree/mm tree/init
cd tree || exit 1
git init -q -b main
printf 'obj-y += kernel/\n' > Kbuild
printf 'mainmenu "fake"\n' > Kconfig
touch mm/.keep init/.keep
echo fast > kernel/speed
cat > Makefile <<'EOF'
VERSION = 6
PATCHLEVEL = 1
SUBLEVEL = 0
O ?= .
KCONFIG_CONFIG ?= .config
tinyconfig:
	echo '# CONFIG_SMP is not set' > $(O)/$(KCONFIG_CONFIG)
olddefconfig:
	test -s $(O)/$(KCONFIG_CONFIG)
bzImage:
	test ! -e kernel/broken || { echo 'kernel/broken: error: planted'; exit 1; }
	mkdir -p $(O)/arch/x86/boot
	python3 mkimage.py $(O)/arch/x86/boot/bzImage "$$(cat kernel/speed)$$(test -e kernel/panic && echo -panic)"
EOF
cat > mkimage.py <<'EOF'
import sys
ver = b"6.1.0-" + sys.argv[2].encode() + b" (e2e@perfbot) #1 SMP"
img = bytearray(0x400)
img[0x202:0x206] = b"HdrS"
img[0x20e:0x210] = (0x100).to_bytes(2, "little")
img[0x300:0x300 + len(ver)] = ver
img += b"\nspeed=" + sys.argv[2].encode() + b"\n"
open(sys.argv[1], "wb").write(img)
EOF
export GIT_AUTHOR_NAME="Kernel Dev" GIT_AUTHOR_EMAIL=dev@kernel.example \
	GIT_COMMITTER_NAME="Kernel Dev" GIT_COMMITTER_EMAIL=dev@kernel.example
C=("")
commit() {
	export GIT_AUTHOR_DATE="2026-11-01T1${#C[@]}:00:00Z" GIT_COMMITTER_DATE="2026-11-01T1${#C[@]}:00:00Z"
	git add -A && git commit -q -m "$1" && C+=("$(git rev-parse HEAD)")
}
commit "c1: the release"
echo one >> init/.keep; commit "c2: a comment"
touch kernel/broken; commit "c3: breaks the build"
rm kernel/broken; commit "c4: fixes the build"
echo slow > kernel/speed; commit "c5: the planted slowdown"
echo two >> init/.keep; commit "c6: a comment"
echo panic > kernel/panic; commit "c7: panics at boot"
rm kernel/panic; commit "c8: no more panic"
cd "$SANDBOX" || exit 1
diag "tree: ${C[*]:1}"

write_fake_qemu
}

# ./fake-qemu, as PERFBOT_QEMU: the guest played on the host.  A kernel
# whose image says "speed=...-panic" or whose name has "panic" panics at
# boot; one whose name ends in -b warns in futex_wake(); FAKE_MS is 115
# for a "speed=slow" image, else 100.
write_fake_qemu() {
cat > fake-qemu <<'EOF'
#!/bin/sh
# a stand-in for qemu-system-x86_64 (t2110's): the guest's /init, on the host
while [ $# -gt 0 ]; do
	case $1 in
	-initrd) initrd=$2; shift ;;
	-kernel) kernel=$2; shift ;;
	file:*) console=${1#file:} ;;
	file,id=record,path=*) record=${1#file,id=record,path=} ;;
	esac
	shift
done
work=$(dirname "$console")
python3 - "$initrd" "$work/job.yaml" <<'PY'
import sys
data, out = open(sys.argv[1], "rb").read(), sys.argv[2]
i = 0
while i < len(data):
    f = [int(data[i + 6 + 8 * k:i + 14 + 8 * k], 16) for k in range(13)]
    size, namesize = f[6], f[11]
    name = data[i + 110:i + 110 + namesize - 1].decode()
    j = (i + 110 + namesize + 3) & ~3
    if name in ("job.yaml", "/job.yaml"):
        open(out, "wb").write(data[j:j + size])
    if name == "TRAILER!!!":
        break
    i = (j + size + 3) & ~3
PY
printf '[    0.0] Linux version 6.1.0-fake\n' > "$console"
case $kernel in *-b) warn=1 ;; *) warn= ;; esac
if grep -q 'speed=.*-panic' "$kernel" || case $kernel in *panic*) true ;; *) false ;; esac; then
	printf '[    0.5] Kernel panic - not syncing: planted\n' >> "$console"
	exit 0
fi
[ -z "$warn" ] || printf '[    1.2] WARNING: CPU: 0 PID: 42 at kernel/futex/waitwake.c:154 futex_wake+0x1a/0x200\n' >> "$console"
if grep -q 'speed=slow' "$kernel"; then FAKE_MS=115; else FAKE_MS=100; fi
export FAKE_MS
"$PERFBOT" guest-run --commit ignored "$work/job.yaml" > "$record" 2>> "$console"
EOF
chmod +x fake-qemu
export PERFBOT_QEMU="$SANDBOX/fake-qemu" PERFBOT
}

# kexec and systemctl stand-ins that log their argv to $SANDBOX/cmds.log,
# and every place boot: kexec uses inside the sandbox (PERFBOT_KEXEC,
# PERFBOT_SYSTEMCTL, PERFBOT_SYSTEMD_DIR, PERFBOT_OSRELEASE: the file a
# test writes to play a boot, PERFBOT_KEXEC_DIR).
fake_kexec_commands() {
	for cmd in kexec systemctl; do
		printf '#!/bin/sh\necho "%s $*" >> "%s/cmds.log"\n' "$cmd" "$SANDBOX" > "$SANDBOX/fake-$cmd"
		chmod +x "$SANDBOX/fake-$cmd"
	done
	mkdir -p "$SANDBOX/systemd"
	export PERFBOT_KEXEC="$SANDBOX/fake-kexec" PERFBOT_SYSTEMCTL="$SANDBOX/fake-systemctl"
	export PERFBOT_SYSTEMD_DIR="$SANDBOX/systemd" PERFBOT_OSRELEASE="$SANDBOX/osrelease"
	export PERFBOT_KEXEC_DIR="$SANDBOX/kexec"
}
