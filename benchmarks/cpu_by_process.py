"""Where a grading run's CPU goes, by kind of process: kernels, nbgrader, workers, this process.

    with CpuByProcess() as cpu:
        grade_class(...)
    print(cpu.table(notebooks=600))

A thread reads /proc five times a second and keeps, for every process it sees,
the CPU seconds (user + system) it has used; processes that were running before
count only what they used after. A process that starts and ends between two
readings is missed (the uid-killing helper of a forked kernel, say: milliseconds).
Linux only. The kind of a process comes from its owner and its command line.
"""
import os
import threading

TICKS = os.sysconf("SC_CLK_TCK")
KERNEL_UIDS = 1_000_000  # grader/engine/sandbox.py gives each kernel a uid from 2,000,000,000 up; nothing else here is that high

KINDS = [  # (kind, words that all appear in the command line)
    ("nbgrader autograde (record, or plain grading)", ("nbgrader", "autograde")),
    ("nbgrader generate_assignment", ("nbgrader", "generate_assignment")),
    ("alembic (nbgrader's gradebook set-up)", ("alembic",)),
    ("zygotes (fork kernels)", ("ctrl_in",)),  # words of grader/engine/forkserver.py's ZYGOTE program
    ("worker processes (nbclient)", ("multiprocessing",)),
]


def kind_of(pid, me):
    try:
        cmdline = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
        uid = os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None
    if pid == me:
        return "this process (plan, keep results, progress)"
    if uid >= KERNEL_UIDS:
        return "kernels (the notebooks' own code, and ipykernel)"
    if cmdline.startswith("bwrap"):
        return "bubblewrap"
    for kind, words in KINDS:
        if all(w in cmdline for w in words):
            return kind
    return "other processes" if cmdline else "the operating system (kernel threads)"


def cpu_seconds(pid):
    """(CPU seconds used, start time) of a process, or None if it is gone."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS, fields[19]


class CpuByProcess:
    def __init__(self, every=0.2):
        self.every, self.seen, self.me = every, {}, os.getpid()
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
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            now = cpu_seconds(int(entry))
            if now is None:
                continue
            used, started = now
            key = (int(entry), started)  # a pid can be reused
            if key not in self.seen:
                kind = kind_of(int(entry), self.me)
                if kind is None:
                    continue
                self.seen[key] = [kind, used if first else 0.0, used]
            self.seen[key][2] = max(self.seen[key][2], used)

    def totals(self):
        """{kind: CPU seconds used while watched}."""
        out = {}
        for kind, before, last in self.seen.values():
            out[kind] = out.get(kind, 0.0) + last - before
        return out

    def table(self, notebooks, wall):
        totals = {k: v for k, v in self.totals().items() if v >= 0.05}
        cores = os.cpu_count() or 1
        lines = [f"  {'CPU seconds by process':52}{'s':>8}{'s/notebook':>12}"]
        for kind, seconds in sorted(totals.items(), key=lambda kv: -kv[1]):
            lines.append(f"  {kind:52}{seconds:8.1f}{seconds / notebooks:12.3f}")
        used = sum(totals.values())
        lines.append(f"  {'all':52}{used:8.1f}{used / notebooks:12.3f}")
        lines.append(f"  {'idle (cores x wall - all)':52}{max(0.0, cores * wall - used):8.1f}")
        return "\n".join(lines)
