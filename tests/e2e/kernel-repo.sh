#!/bin/bash
# kernel-repo.sh DIR - a Linux kernel repository for the kernel e2e and
# bench/kernel-bisect: Debian's linux-source-6.1 as its first commit,
# then twelve commits on main and one on the branch warn:
#
#   c1  Documentation        c7  comment (kernel/futex/waitwake.c)
#   c2  comment (futex core) c8  PANIC: panic() in a late initcall
#   c3  BREAKS the build     c9  removes the panic
#   c4  fixes the build      c10 Documentation
#   c5  Documentation        c11 comment (kernel/futex/pi.c)
#   c6  PLANTED: a busy loop c12 Documentation
#       at the top of futex_wake()
#   warn (on c12): WARN_ON_ONCE(1) at the top of futex_wake()
#
# Writes DIR/../kernel-commits: "name sha" lines.  Needs
# /usr/src/linux-source-6.1.tar.xz (scripts/install-deps.sh installs it).
set -eu

dir=$1
tarball=${PERFBOT_LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
[ -r "$tarball" ] || { echo "kernel-repo.sh: no $tarball" >&2; exit 1; }
mkdir -p "$dir"
tar -xJf "$tarball" -C "$dir" --strip-components=1
cd "$dir"
# Debian's tree ignores everything at its top level (its packaging)
python3 - <<'PY'
s = open(".gitignore").read()
i = s.find("#\n# Debian packaging")
if i >= 0:
    open(".gitignore", "w").write(s[:i])
PY
export GIT_AUTHOR_NAME="Kernel Dev" GIT_AUTHOR_EMAIL=dev@kernel.example \
	GIT_COMMITTER_NAME="Kernel Dev" GIT_COMMITTER_EMAIL=dev@kernel.example
n=0
stamp() {
	n=$((n + 1))
	export GIT_AUTHOR_DATE="2026-11-0$((1 + n / 10))T1$((n % 10)):00:00Z"
	export GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
}
commit() {
	stamp
	git add -A -f
	git commit -q -m "$1"
	echo "$2 $(git rev-parse HEAD)" >> ../kernel-commits
}
: > ../kernel-commits
git init -q -b main
git config core.looseCompression 1
commit "Linux $(make -s kernelversion 2>/dev/null || echo 6.1) (Debian linux-source-6.1)" c0

doc() {
	printf '\n.. perfbot e2e note %s\n' "$1" >> Documentation/locking/futex-requeue-pi.rst
}
# the line after $2 in file $1 gets $3 inserted before it (python: exact match)
insert_after() {
	python3 - "$@" <<'PY'
import sys
path, anchor, text = sys.argv[1:4]
s = open(path).read()
i = s.index(anchor) + len(anchor)
open(path, "w").write(s[:i] + text + s[i:])
PY
}
remove() {
	python3 - "$@" <<'PY'
import sys
path, text = sys.argv[1:3]
s = open(path).read()
assert text in s
open(path, "w").write(s.replace(text, "", 1))
PY
}

doc 1
commit "Documentation: futex: a note on requeue-pi" c1
insert_after kernel/futex/core.c "#include <linux/slab.h>" $'\n/* perfbot e2e: a comment only */'
commit "futex: a comment in core.c" c2
broken=$'\nint perfbot_e2e_broken = ; /* a planted build failure */\n'
insert_after kernel/futex/requeue.c "#include <linux/sched/signal.h>" "$broken"
commit "futex: requeue: a typo that breaks the build" c3
remove kernel/futex/requeue.c "$broken"
commit "futex: requeue: fix the build" c4
doc 5
commit "Documentation: futex: another note" c5
slow=$'\n\t{\n\t\tint perfbot_e2e_spin;\n\n\t\t/* a planted slowdown */\n\t\tfor (perfbot_e2e_spin = 0; perfbot_e2e_spin < 300; perfbot_e2e_spin++)\n\t\t\tcpu_relax();\n\t}\n'
insert_after kernel/futex/waitwake.c $'\tDEFINE_WAKE_Q(wake_q);\n' "$slow"
commit "futex: check the waiters a little longer" c6
insert_after kernel/futex/waitwake.c "int futex_wake(u32 __user *uaddr, unsigned int flags, int nr_wake, u32 bitset)" $'\n/* perfbot e2e: wake up to nr_wake waiters */'
commit "futex: a comment on futex_wake()" c7
panic=$'\n\nstatic int __init perfbot_e2e_panic(void)\n{\n\tpanic("perfbot e2e: a planted panic in an initcall");\n\treturn 0;\n}\nlate_initcall(perfbot_e2e_panic);\n'
insert_after kernel/futex/core.c "core_initcall(futex_init);" "$panic"
commit "futex: an initcall that panics" c8
remove kernel/futex/core.c "$panic"
commit "futex: remove the initcall that panics" c9
doc 10
commit "Documentation: futex: a third note" c10
insert_after kernel/futex/pi.c "#include <linux/slab.h>" $'\n/* perfbot e2e: a comment in pi.c */'
commit "futex: pi: a comment" c11
doc 12
commit "Documentation: futex: a last note" c12

git checkout -q -b warn
insert_after kernel/futex/waitwake.c "$slow" $'\tWARN_ON_ONCE(1);\t/* perfbot e2e: a planted warning */\n'
commit "futex: warn in futex_wake()" warn
git checkout -q main
