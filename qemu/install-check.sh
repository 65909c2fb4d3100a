#!/bin/bash
# The install check inside the fresh Debian 12 guest of make test-install (scripts/install-test.sh): run by the
# image's init stub (scripts/debian-rootfs.sh) from the check disk, mounted read-only at /mnt/tungro-check with
# tungro.bundle (a git bundle of the tested commit) and version (what scripts/version.sh gives for it).
# It does what a new user does, as README says it: as an ordinary user (dev, with sudo) git clone, make without
# headers (the error must name the package), make, sudo make install, make again, sudo modprobe tungro, sudo make
# dkms-install, sudo modprobe -r, and a load of the DKMS build. Every command's output goes to the console (the host's
# console.log); each step's verdict, its time and the lines that prove it go to the virtio-serial port
# tungro.results, ending with "success" or "failure: <steps>". The stub powers the guest off afterwards.
# The step commands are single-quoted: the guest's shell expands them when they run.
# shellcheck disable=SC2016
set -uo pipefail
disk=/mnt/tungro-check
user=dev
tree=/home/$user/tungro
port=
failed=()

say() { echo "[check] $*"; }
# result LINE: one line to the host's results file (and the console)
result() {
  say "$*"
  [ -z "$port" ] || printf '%s\n' "$*" >>"$port"
}

# The results port: virtio_console is a module on Debian's kernel; without udev the port's name is in sysfs.
find_port() {
  local d
  modprobe virtio_console || return 1
  for _ in $(seq 50); do
    for d in /sys/class/virtio-ports/vport*; do
      [ -f "$d/name" ] && [ "$(cat "$d/name")" = tungro.results ] && [ -c "/dev/${d##*/}" ] &&
        { echo "/dev/${d##*/}"; return 0; }
    done
    sleep 0.2
  done
  return 1
}

# step NAME COMMAND: runs COMMAND (a bash command line) in $tree as the user would type it, output to the
# console and $log; "STEP NAME ok|FAILED ..." with its time to the results. A failed step is reported and
# the check goes on with the next one (so one boot shows every step), but the run fails.
# as=dev before step or show runs the command as the user (sudo where README says sudo), else as root.
log=/root/check-step.log
as=
in_tree() {
  if [ "$as" = "$user" ]; then
    runuser -u "$user" -- bash -c "cd $tree 2>/dev/null || cd; $1"
  else
    cd "$tree" 2>/dev/null || cd /root || exit
    bash -c "$1"
  fi
}
step() {
  local name=$1 cmd=$2 t0=$SECONDS rc
  say "---- $name: $cmd"
  (in_tree "$cmd") 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 0 ]; then
    result "STEP $name ok $((SECONDS - t0)) s"
  else
    result "STEP $name FAILED (exit $rc) $((SECONDS - t0)) s"
    tail -n 15 "$log" | sed "s/^/OUT $name| /" | while IFS= read -r l; do result "$l"; done
    failed+=("$name")
  fi
  return "$rc"
}
# show NAME COMMAND: runs COMMAND and copies each output line to the results as "NAME| line".
show() {
  local name=$1 cmd=$2 l
  say "---- $name: $cmd"
  (in_tree "$cmd") 2>&1 | while IFS= read -r l; do result "$name| $l"; done
}

port=$(find_port) || { say "no virtio-serial port tungro.results: nothing can report"; exit 1; }
result "# tungro install check: arch=$(uname -m) kernel=$(uname -r) (Debian 12 guest, $(nproc) CPUs)"
mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security
show release 'uname -r; cat /proc/version; ls -ld /lib/modules/$(uname -r)/build; cat /sys/kernel/security/lockdown'
show packages 'dpkg-query -W -f "\${Package} \${Version}\n" linux-image-amd64 linux-headers-amd64 "linux-image-$(uname -r)" dkms gcc-12 g++-12 make git kmod linux-perf trace-cmd bpftrace'

# The user: a login of its own, sudo without a password (the guest has no one to type it).
step user "useradd -m -s /bin/bash $user && echo '$user ALL=(ALL) NOPASSWD: ALL' >/etc/sudoers.d/$user && chmod 440 /etc/sudoers.d/$user && runuser -u $user -- sudo -n true"
as=$user step clone "git clone $disk/tungro.bundle $tree && cd $tree && git log --oneline -1"
as=$user step version "test \"\$(scripts/version.sh)\" = \"$(cat $disk/version)\" && scripts/version.sh"
# Without headers for the running kernel, make must fail and name the directory and Debian's package; the
# headers' build link is put aside for the one command and put back whatever it did.
step no-headers "b=/lib/modules/\$(uname -r)/build; mv \$b \$b.aside || exit; runuser -u $user -- make -C $tree >/tmp/no-headers.log 2>&1; rc=\$?; mv \$b.aside \$b; cat /tmp/no-headers.log; test \$rc -ne 0 && grep \"\$b is missing\" /tmp/no-headers.log && grep \"apt-get install linux-headers-\$(uname -r)\" /tmp/no-headers.log"
as=$user step make "make"
grep -m1 'BTF' "$log" | sed 's/^/INFO btf: /' | while IFS= read -r l; do result "$l"; done
as=$user step make-install "sudo make install"
# sudo make install ran Kbuild as root in the user's tree: the user's next make must still work.
as=$user step make-again "make && test -z \"\$(find . -user root | head -n 3)\""
show installed 'find /lib/modules/$(uname -r) -name "tungro.ko*"; echo "modinfo -n: $(modinfo -n tungro)"; echo "signer: $(modinfo -F signer tungro)"'
step modprobe "modprobe tungro"
show lsmod 'lsmod | grep tungro'
show modinfo 'modinfo tungro | grep -v "^parm:"'
show parameters 'grep -H . /sys/module/tungro/parameters/*; echo "taint: $(cat /sys/module/tungro/taint)"'
show dmesg 'dmesg | grep "tungro:"'
# tungro's tracepoints from perf, trace-cmd and bpftrace while the make install build is loaded, around a TCP
# transfer through an IPIP tunnel between two namespaces (the check disk's trace.sh, qemu/install-trace.sh);
# its TRACE lines (each tool's key output and its comparison with debugfs) go to the results.
trace_step() {
  step "$1" "$disk/trace.sh $1"
  sed -n 's/^TRACE /INFO /p' "$log" | while IFS= read -r l; do result "$l"; done
}
trace_step setup
trace_step counters
trace_step perf-stat
trace_step perf-record
trace_step trace-cmd
trace_step bpftrace
as=$user step dkms-install "sudo make dkms-install"
show dkms-status 'dkms status'
step modprobe-r "modprobe -r tungro && ! test -e /sys/module/tungro"
# The module modprobe finds now must be DKMS' build (updates/dkms), and it must load and unload as well.
step dkms-load "modinfo -n tungro | grep -q /updates/dkms/ && modprobe tungro && lsmod | grep tungro && modprobe -r tungro"
show dkms-modinfo 'modinfo -n tungro; modinfo -F vermagic tungro; echo "signer: $(modinfo -F signer tungro)"'
# make install now refuses this kernel, naming DKMS's copy, rather than install a second one beside it.
as=$user step install-refused "! sudo make install >/tmp/refused.log 2>&1 && grep 'DKMS installed tungro' /tmp/refused.log && test \"\$(find /lib/modules/\$(uname -r) -name 'tungro.ko*' | wc -l)\" = 1"
as=$user step dkms-remove "sudo make dkms-remove && ! dkms status | grep tungro"
show dmesg-end 'dmesg | grep "tungro:" | tail -n 4'

if [ "${#failed[@]}" -eq 0 ]; then
  result success
else
  result "failure: ${failed[*]}"
fi
