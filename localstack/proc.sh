# shellcheck shell=bash
# Sourced by the stack scripts: PID files are trusted only while the PID is
# still the process that wrote it (a reboot or crash can leave a file whose
# PID now belongs to something else, which must never be killed).

# alive PIDFILE MARKER: the PID in PIDFILE runs and its command line has MARKER.
alive() {
  local pid
  [ -f "$1" ] || return 1
  pid=$(cat "$1")
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$2"
}

# stop_pidfile NAME PIDFILE MARKER: stops the process if it is ours, then
# forgets the file either way.
stop_pidfile() {
  local pid
  if alive "$2" "$3"; then
    pid=$(cat "$2")
    kill "$pid"
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    echo "$1 stopped (pid $pid)"
  fi
  rm -f "$2"
}

# port_open PORT [HOST]: something listens there.
port_open() {
  (exec 3<>"/dev/tcp/${2:-127.0.0.1}/$1") 2>/dev/null
}
