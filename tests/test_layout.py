"""The grader's modules import each other in one direction: no module imports one that imports it back.

Every import counts, a function's own included (a lazy import is still a loop a reader must hold in
their head: the sandbox once imported the forkserver for its timing `main`, and the forkserver the
sandbox).
"""
import ast
from pathlib import Path

from grader.engine.build import ROOT

PACKAGE = ROOT / "grader"


def _module(path):
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _imports(path, modules=()):
    """The grader modules a file imports, anywhere in it. `from . import cases` imports the module `cases`,
    not its package's __init__ (Python has that package already, as it has for any submodule's import)."""
    here = _module(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("grader")}
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            stem = ".".join(base + ([node.module] if node.module else []))
            if not stem.startswith("grader"):
                continue
            submodules = {f"{stem}.{a.name}" for a in node.names} & set(modules)
            found |= submodules
            if len(submodules) < len(node.names):  # some names are read from the module `stem` itself
                found.add(stem)
    return found


def _graph():
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}
    return {m: sorted(i for i in _imports(p, modules) if i in modules and i != m) for m, p in modules.items()}


def _cycle(graph):
    """One import loop as a list of modules, or None."""
    state = {}

    def visit(m, path):
        state[m] = "open"
        for n in graph[m]:
            if state.get(n) == "open":
                return path[path.index(n):] + [n]
            if n not in state and (loop := visit(n, path + [n])):
                return loop
        state[m] = "done"
        return None

    for m in sorted(graph):
        if m not in state and (loop := visit(m, [m])):
            return loop
    return None


def test_no_import_loop_in_the_grader():
    graph = _graph()
    assert "grader.engine.sandbox" in graph and "grader.engine.forkserver" in graph["grader.engine.sandbox_check"]
    loop = _cycle(graph)
    assert loop is None, "import loop: " + " -> ".join(loop)


def test_the_loop_finder_finds_a_loop():
    assert _cycle({"a": ["b"], "b": ["c"], "c": ["a"]}) == ["a", "b", "c", "a"]
    assert _cycle({"a": ["b"], "b": [], "c": ["a", "b"]}) is None


def test_the_engine_imports_nothing_of_the_course():
    """grader/engine/ grades any notebook course; it reaches this one only through courseware.course()."""
    graph = _graph()
    engine = [m for m in graph if m.startswith("grader.engine")]
    assert "grader.engine.sandbox" in engine and "grader.engine.protocol" in engine
    outside = {m: [i for i in graph[m] if not i.startswith("grader.engine")] for m in engine}
    assert not any(outside.values()), {m: i for m, i in outside.items() if i}


def test_the_course_module_gives_the_engine_all_it_reads():
    from grader.engine.courseware import course
    c = course()
    assert c.PROBES and callable(c.render) and c.same(1.0, 1.0 + c.RTOL / 2) and not c.same(1.0, 2.0)


def test_a_notebook_folder_imports_only_itself_shared_and_the_engine_protocol():
    """grader/course/nbNN_*/ is one notebook's course code: what it needs of another notebook belongs in shared/."""
    graph = _graph()
    folders = {m.split(".")[2] for m in graph if m.startswith("grader.course.nb")}
    assert len(folders) >= 9, folders
    for m, imported in graph.items():
        if not m.startswith("grader.course."):
            continue
        folder = m.split(".")[2]
        allowed = ("grader.course.shared", "grader.engine.protocol") + ((f"grader.course.{folder}",) if folder != "shared" else ())
        wrong = [i for i in imported if not i.startswith(allowed)]
        assert not wrong, f"{m} imports {wrong}"
