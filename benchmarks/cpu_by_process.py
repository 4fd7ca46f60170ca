"""Where a grading run's CPU goes, by kind of process: kernels (students', judgement), nbgrader, workers, this process.

    with CpuByProcess() as cpu:
        grade_class(...)
    print(cpu.table(notebooks=600))

A thread reads /proc five times a second and keeps, for every process it sees,
the CPU seconds (user + system) it has used; processes that were running before
count only what they used after. A process that starts and ends between two
readings is missed (the uid-killing helper of a forked kernel, say: milliseconds).
Linux only. The kind of a process comes from its owner, its name and its command line.
Only this process and its descendants (as seen through their parents when first
read) count as the run's own: another user's kernels or tests on a shared machine
are "other work", counted apart, like the operating system's threads.
"""
import os
import threading

from grader.engine.record import PROCESS_NAME as RECORDER_NAME

TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
KERNEL_UIDS = 1_000_000  # grader/engine/sandbox.py gives each kernel a uid from 2,000,000,000 up; nothing else here is that high

KERNELS = "kernels (the notebooks' own code, and ipykernel)"
# A kernel a recording process started (grader/engine/nbgrader_plugin.py, SealVerdicts.judge): a wrong part's
# notebook run again, with the course's helpers, to see whether the mistake is its own or a helper's.
JUDGEMENT = "judgement kernels (wrong parts, course helpers in)"
RECORDING = "nbgrader autograde (record, or plain grading)"
WORKERS = "worker processes (nbclient)"
KINDS = [  # (kind, words that all appear in the command line)
    (RECORDING, ("nbgrader", "autograde")),
    ("nbgrader generate_assignment", ("nbgrader", "generate_assignment")),
    ("alembic (nbgrader's gradebook set-up)", ("alembic",)),
    ("zygotes (fork kernels)", ("ctrl_in",)),  # words of grader/engine/forkserver.py's ZYGOTE program
    (WORKERS, ("multiprocessing",)),  # grading's recording processes too, until they name themselves
]


def kind_of(pid, me):
    try:
        cmdline = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
        uid = os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None
    if pid == me:
        return "this process (plan, keep results, progress)"
    if _comm(pid) == RECORDER_NAME:
        return RECORDING
    if uid >= KERNEL_UIDS:
        return KERNELS
    if cmdline.startswith("bwrap"):
        return "bubblewrap"
    for kind, words in KINDS:
        if all(w in cmdline for w in words):
            return kind
    return "other processes" if cmdline else "the operating system (kernel threads)"


def _under_recording(pid, now):
    """True if a recording process is among the process's ancestors (now: {pid: (cpu, start, parent)})."""
    for _ in range(16):  # kernel, its zygote or bubblewrap, the recording process: a few levels
        pid = now.get(pid, (0, 0, 0))[2]
        if pid <= 1:
            return False
        if _comm(pid) == RECORDER_NAME:
            return True
    return False


def _comm(pid):
    try:
        return open(f"/proc/{pid}/comm").read().strip()
    except OSError:
        return None


def _resident(pid):
    """Bytes of memory the process holds (its resident set), 0 if it is gone."""
    try:
        return int(open(f"/proc/{pid}/statm").read().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def cpu_seconds(pid):
    """(CPU seconds used, start time) of a process, or None if it is gone."""
    now = _stat(pid)
    return now and now[:2]


def _stat(pid):
    """(CPU seconds used, start time, parent pid) of a process, or None if it is gone."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS, fields[19], int(fields[1])


class CpuByProcess:
    def __init__(self, every=0.2):
        self.every, self.seen, self.me = every, {}, os.getpid()
        self.peak = 0  # bytes: the most the run's own processes, kernels apart, held in memory at one reading
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self):
        self._read(first=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._read(first=False)

    def _watch(self):
        while not self._stop.wait(self.every):
            self._read(first=False)

    def _read(self, first):
        now = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                stat = _stat(int(entry))
                if stat is not None:
                    now[int(entry)] = stat
        # Ours: this process, and any process whose parent is ours (a child may be listed before its parent).
        ours = {pid for pid, (_, started, _) in now.items()
                if pid == self.me or self.seen.get((pid, started), [None, 0, 0, False])[3]}
        grew = True
        while grew:
            more = {pid for pid, (_, _, parent) in now.items() if parent in ours} - ours
            ours |= more
            grew = bool(more)
        for pid, (used, started, _) in now.items():
            key = (pid, started)  # a pid can be reused
            if key not in self.seen:
                kind = kind_of(pid, self.me)
                if kind is None:
                    continue
                if kind == KERNELS and _under_recording(pid, now):
                    kind = JUDGEMENT
                self.seen[key] = [kind, used if first else 0.0, used, pid in ours]
            elif self.seen[key][0] == WORKERS and _comm(pid) == RECORDER_NAME:
                self.seen[key][0] = RECORDING  # a recording process names itself once it has started
            self.seen[key][2] = max(self.seen[key][2], used)
        held = sum(_resident(pid) for pid, (_, started, _) in now.items() if pid in ours and
                   self.seen.get((pid, started), [KERNELS])[0] not in (KERNELS, JUDGEMENT, "bubblewrap"))
        self.peak = max(self.peak, held)

    def totals(self):
        """{kind: CPU seconds used while watched} of this process and its descendants."""
        out = {}
        for kind, before, last, ours in self.seen.values():
            if ours:
                out[kind] = out.get(kind, 0.0) + last - before
        return out

    def own(self):
        """CPU seconds this process and its descendants used while watched."""
        return sum(self.totals().values())

    def other(self):
        """CPU seconds every other process (other work on the machine, the operating system) used while watched."""
        return sum(last - before for _, before, last, ours in self.seen.values() if not ours)

    def table(self, notebooks, wall):
        totals = {k: v for k, v in self.totals().items() if v >= 0.05}
        cores = os.cpu_count() or 1
        lines = [f"  {'CPU seconds by process':52}{'s':>8}{'s/notebook':>12}"]
        for kind, seconds in sorted(totals.items(), key=lambda kv: -kv[1]):
            lines.append(f"  {kind:52}{seconds:8.1f}{seconds / notebooks:12.3f}")
        used, other = sum(totals.values()), self.other()
        lines.append(f"  {'all of this run':52}{used:8.1f}{used / notebooks:12.3f}")
        lines.append(f"  {'other work on the machine, and the OS':52}{other:8.1f}")
        lines.append(f"  {'idle (cores x wall - both)':52}{max(0.0, cores * wall - used - other):8.1f}")
        lines.append(f"  peak memory of the grader's own processes (resident, summed; kernels apart): "
                     f"{self.peak / 2**20:.0f} MiB")
        return "\n".join(lines)
