"""A CPU and a memory limit per kernel: each kernel in a cgroup of its own, allowed `cpus` cores and
`memory` bytes of RAM at most, everything it starts included.

RLIMIT_CPU bounds one process's CPU time, not how many processes burn it at once: a submission that
starts 200 busy children (setsid'd or not) would take every core from the other kernels of the class
while its notebook runs. RLIMIT_AS bounds one process's memory, not a kernel's: four forked children of
2 GiB each, each under the per-process limit, would hold 8 GiB. In a cgroup of its own, everything a
kernel starts shares its quota and its memory budget (the kernel's largest process is killed past it,
and `oom_kills` says so), and the other notebooks run at the speed they run alone.

Where the machine offers it, as root: cgroup v2 (cpu.max, memory.max and memory.swap.max) if the unified
hierarchy has the controllers, else cgroup v1's cpu and memory controllers (cpu.cfs_quota_us,
memory.limit_in_bytes and memory.memsw.limit_in_bytes). Neither (not root, no cgroup file system, a
container that does not delegate one): `kernel_cgroup` returns None and a kernel is bounded by
RLIMIT_CPU and RLIMIT_AS per process and killed, with everything it started, when its notebook ends or
runs past its time limit.

Cgroups are named after the grading process (course-kernels/g<pid>-<kernel>): the
next run removes those a killed grader left.
"""
import os
import time

PERIOD_US = 100_000
PARENT = "course-kernels"


def _mounts():
    """(file system type, mount point, super options) of every cgroup mount, from /proc/self/mountinfo."""
    found = []
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, right = line.split(" - ", 1)
                fstype, _, options = right.split()[:3]
                if fstype in ("cgroup", "cgroup2"):
                    found.append((fstype, left.split()[4], options.split(",")))
    except OSError:
        pass
    return found


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def _hierarchies():
    """{controller: (version, directory under which kernels' cgroups go)} for "cpu" and "memory", where
    that controller is ours (root, and a cgroup file system that offers it)."""
    if os.geteuid() != 0:
        return {}
    found = {}
    for fstype, point, options in _mounts():
        if fstype != "cgroup2":
            continue
        try:
            with open(os.path.join(point, "cgroup.controllers")) as f:
                offered = [c for c in ("cpu", "memory") if c in f.read().split()]
            if not offered:
                continue
            enable = " ".join("+" + c for c in offered)
            _write(os.path.join(point, "cgroup.subtree_control"), enable)
            parent = os.path.join(point, PARENT)
            os.makedirs(parent, exist_ok=True)
            _write(os.path.join(parent, "cgroup.subtree_control"), enable)
            return {c: (2, parent) for c in offered}
        except OSError:
            continue
    for fstype, point, options in _mounts():
        for controller in ("cpu", "memory"):
            if fstype == "cgroup" and controller in options and controller not in found:
                parent = os.path.join(point, PARENT)
                try:
                    os.makedirs(parent, exist_ok=True)
                    found[controller] = (1, parent)
                except OSError:
                    continue
    return found


_hierarchies_found = None  # not looked for yet


def hierarchies():
    global _hierarchies_found
    if _hierarchies_found is None:
        _hierarchies_found = _hierarchies()
        for parent in {parent for _, parent in _hierarchies_found.values()}:
            _remove_stale(parent)
    return _hierarchies_found


def hierarchy():
    """(version, parent) of the cpu controller, or None."""
    return hierarchies().get("cpu")


def _remove_stale(parent):
    for name in os.listdir(parent):
        pid = name[1:].split("-", 1)[0]
        if name.startswith("g") and pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            try:
                os.rmdir(os.path.join(parent, name))
            except OSError:
                pass


class KernelCgroup:
    """One kernel's cgroups: add(pid) puts a process (and so all it will start) in them; close() removes them."""

    def __init__(self, found, name, cpus, memory):
        self.paths = {}  # controller -> directory (one directory for both under cgroup v2)
        self.version = {}
        try:
            if cpus and cpus > 0 and "cpu" in found:
                self._limit_cpu(*found["cpu"], name, cpus)
            if memory and memory > 0 and "memory" in found:
                self._limit_memory(*found["memory"], name, memory)
        except OSError:
            self.close(wait=0)
            raise

    def _directory(self, controller, version, parent, name):
        path = os.path.join(parent, f"g{os.getpid()}-{name}")
        if path not in self.paths.values():
            os.mkdir(path)
        self.paths[controller], self.version[controller] = path, version
        return path

    def _limit_cpu(self, version, parent, name, cpus):
        path = self._directory("cpu", version, parent, name)
        quota = max(1000, int(cpus * PERIOD_US))
        if version == 2:
            _write(os.path.join(path, "cpu.max"), f"{quota} {PERIOD_US}")
        else:
            _write(os.path.join(path, "cpu.cfs_period_us"), str(PERIOD_US))
            _write(os.path.join(path, "cpu.cfs_quota_us"), str(quota))

    def _limit_memory(self, version, parent, name, memory):
        path = self._directory("memory", version, parent, name)
        if version == 2:
            _write(os.path.join(path, "memory.max"), str(int(memory)))
            try:
                _write(os.path.join(path, "memory.swap.max"), "0")  # the budget is RAM: no swapping past it
            except OSError:
                pass
        else:
            _write(os.path.join(path, "memory.limit_in_bytes"), str(int(memory)))
            try:
                _write(os.path.join(path, "memory.memsw.limit_in_bytes"), str(int(memory)))
            except OSError:
                pass  # a kernel built without swap accounting: RAM is bounded all the same

    @property
    def memory(self):
        """The memory budget in bytes, or None when there is none."""
        path = self.paths.get("memory")
        if path is None:
            return None
        name = "memory.max" if self.version["memory"] == 2 else "memory.limit_in_bytes"
        try:
            with open(os.path.join(path, name)) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def add(self, pid):
        for path in dict.fromkeys(self.paths.values()):
            _write(os.path.join(path, "cgroup.procs"), str(pid))

    def pids(self):
        path = self.paths.get("cpu") or self.paths.get("memory")
        try:
            with open(os.path.join(path, "cgroup.procs")) as f:
                return [int(p) for p in f.read().split()]
        except (OSError, TypeError):
            return []

    def oom_kills(self):
        """How many of the kernel's processes were killed for going over its memory budget."""
        path = self.paths.get("memory")
        if path is None:
            return 0
        name = "memory.events" if self.version["memory"] == 2 else "memory.oom_control"
        try:
            with open(os.path.join(path, name)) as f:
                for line in f:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def close(self, wait=2.0):
        """Remove the cgroups once their processes are gone (they were killed just before)."""
        for path in dict.fromkeys(self.paths.values()):
            deadline = time.monotonic() + wait
            while True:
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break  # a process still exiting: the next run removes it
                    time.sleep(0.01)


def kernel_cgroup(name, cpus, memory=0):
    """A cgroup of `cpus` cores and `memory` bytes for one kernel, or None (see the module doc); cpus <= 0
    or memory <= 0: no limit of that kind."""
    found = hierarchies()
    if not ((cpus and cpus > 0 and "cpu" in found) or (memory and memory > 0 and "memory" in found)):
        return None
    try:
        return KernelCgroup(found, name, cpus, memory)
    except OSError:
        return None
