"""Mutation testing of the rules engines (the rules modules of ``envs/<game>/``) with mutmut 3.

    python tools/mutation.py                  # every engine found under envs/*/game.py
    python tools/mutation.py cubirds          # one engine
    python tools/mutation.py cubirds --rev HEAD   # the committed code instead of the working tree
    python tools/mutation.py odins_ravens --resume --sample 150   # estimate: a random sample
    python tools/mutation.py cubirds --modules game.py   # only some modules of the engine

By default every module of the engine folder is mutated except ``__init__.py``, ``data.py`` (its
tables are module-level code, which mutmut 3 leaves alone) and ``render.py`` (text for people, not
rules): ``game.py``, ``config.py``, ``moves.py``, ``positions.py``, ``hidden.py``, any extra room.
Scores measured before the engines were split into these rooms mutated ``game.py`` alone.

The repository itself is never touched. For each engine this builds a scratch project in
``.mutation/<engine>/`` laid out as the installed package (``cardzoo/envs``, ``cardzoo/encoders``,
...; the repository maps folders to ``cardzoo.*`` through setuptools' package-dir, which mutmut
cannot follow), copies ``tests/`` next to it and runs ``mutmut run`` there. mutmut copies that
tree again into ``mutants/`` and imports the mutated copy ahead of the editable install.

Only the engine's own rules tests run against its mutants: ``tests/<engine>/`` and the conformance
tests of that game, without the golden playthrough (a recorded game notices any change, which says
nothing about which rule broke), and with the conformance random-play test cut from 300 to
``--random-games`` games per case (``CARDZOO_RANDOM_GAMES``; at 300 a surviving mutant costs
minutes). Results: a summary line per engine on stdout and the diff of every surviving mutant in
``.mutation/<engine>/survivors.txt``.

mutmut 3 forks each mutant's test run from a process that has already imported the code, so a
function that runs only while the engine module is imported (one that builds the move tables,
say) never runs mutated there, and all its mutants "survive". After ``mutmut run`` this tool
finds those functions (by profiling a plain import) and re-tests each of their surviving mutants
in a fresh ``pytest`` process started with the mutant switched on, so the tables are built by the
mutated code.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10: pytest depends on the backport
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / ".mutation"
# A recorded playthrough fails on any change at all; it is not a rule assertion.
EXCLUDED_TESTS = ("tests/conformance/test_golden.py",)
KILLED = ("killed", "timeout", "caught by type check")
RESULT_LINE = re.compile(r"^\s+(\S+): (.+)$")


def engines() -> list[str]:
    """Every game with a rules engine, i.e. a folder ``envs/<game>/game.py``."""
    return sorted(p.parent.name for p in ROOT.glob("envs/*/game.py"))


#: Modules of an engine folder that are not mutated by default (see the module docstring).
NOT_RULES = ("__init__.py", "data.py", "render.py")


def rules_modules(project: Path, engine: str, chosen: list[str] | None) -> list[str]:
    """The engine's module files to mutate, relative to its folder (``game.py``, ...)."""
    folder = project / "envs" / engine
    present = sorted(p.name for p in folder.glob("*.py"))
    if chosen is None:
        return [name for name in present if name not in NOT_RULES]
    missing = [name for name in chosen if name not in present]
    if missing:
        raise SystemExit(f"no module {', '.join(missing)} in envs/{engine}/ (found: {present})")
    return chosen


def package_dirs(root: Path = ROOT) -> dict[str, str]:
    """The ``cardzoo.*`` package -> folder mapping declared in ``root``'s pyproject.toml."""
    data = tomllib.loads((root / "pyproject.toml").read_text())
    return dict(data["tool"]["setuptools"]["package-dir"])


def export_tree(rev: str | None, dest: Path) -> None:
    """Every file of the repository into ``dest``: from git revision ``rev``, or from the working
    tree (tracked files and untracked ones that are not ignored), as tests may read docs too."""
    dest.mkdir(parents=True)
    if rev is None:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        ).stdout.decode()
        for name in filter(None, listed.split("\0")):
            source = ROOT / name
            if source.is_file():  # a tracked file deleted in the working tree is still listed
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, dest / name)
        return
    archive = subprocess.run(
        ["git", "archive", "--format=tar", rev], cwd=ROOT, check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")


def mutmut_config(engine: str, project: Path, also_copy: list[str], modules: list[str]) -> str:
    """The ``[tool.mutmut]`` section of the scratch project for ``engine``."""
    folders = [f"tests/{engine}", "tests/conformance"]
    selection = [f for f in folders if (project / f).is_dir()] + ["-k", engine]
    selection += [f"--ignore={path}" for path in EXCLUDED_TESTS]
    return "\n".join(
        [
            "",
            "[tool.mutmut]",
            'source_paths = ["cardzoo"]',
            f"only_mutate = {toml_list([f'cardzoo/envs/{engine}/{m}' for m in modules])}",
            f"also_copy = {toml_list(also_copy)}",
            f"pytest_add_cli_args_test_selection = {toml_list(selection)}",
            'pytest_add_cli_args = ["-p", "no:cacheprovider"]',
            # mutmut's default (15x the clean run) lets one looping mutant cost a quarter hour
            "timeout_multiplier = 5.0",
            # the scratch project lies inside the repository's git tree; that history is not its own
            "use_git_change_detection = false",
            "",
        ]
    )


def toml_list(items: list[str]) -> str:
    quoted = ('"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"' for s in items)
    return "[" + ", ".join(quoted) + "]"


def build_project(engine: str, rev: str | None, modules: list[str] | None) -> Path:
    """A fresh scratch project for ``engine`` in ``.mutation/<engine>/``; returns its path.

    It holds the whole repository plus a ``cardzoo/`` package made of copies of the folders that
    pyproject.toml maps to ``cardzoo.*``, which is what the tests import.
    """
    project = WORK / engine
    if project.exists():
        shutil.rmtree(project)
    export_tree(rev, project)
    if not (project / "envs" / engine / "game.py").is_file():
        raise SystemExit(f"no engine envs/{engine}/game.py in {rev or 'the working tree'}")
    package = project / "cardzoo"
    package.mkdir()
    # A regular package, so the copy is found on sys.path before the editable install's finder.
    (package / "__init__.py").write_text("")
    for name, folder in package_dirs(project).items():
        shutil.copytree(project / folder, project / name.replace(".", "/"))
    # mutmut copies the package, tests/ and pyproject.toml into mutants/; the rest is listed.
    also_copy = sorted(
        p.name for p in project.iterdir() if p.name not in ("cardzoo", "tests", "pyproject.toml")
    )
    pyproject = project / "pyproject.toml"
    chosen = rules_modules(project, engine, modules)
    print(f"   mutating envs/{engine}/: {', '.join(chosen)}", flush=True)
    pyproject.write_text(pyproject.read_text() + mutmut_config(engine, project, also_copy, chosen))
    return project


def mutmut(project: Path, *args: str, capture: bool = False, random_games: int = 0) -> str:
    exe = Path(sys.executable).parent / "mutmut"
    if not exe.exists():
        raise SystemExit("mutmut is not installed: pip install -e '.[mutation]'")
    env = dict(os.environ)
    if random_games:
        env["CARDZOO_RANDOM_GAMES"] = str(random_games)
    pipe = subprocess.PIPE if capture else None
    with subprocess.Popen(
        [str(exe), *args], cwd=project, env=env, text=True, stdout=pipe, stderr=pipe
    ) as child:
        stop = threading.Event()
        guard = threading.Thread(target=stop_runaway_mutants, args=(child.pid, stop), daemon=True)
        guard.start()
        stdout, stderr = child.communicate()
        stop.set()
    if child.returncode != 0:
        tail = (stdout or "")[-2000:] + (stderr or "")[-2000:] if capture else ""
        raise SystemExit(f"mutmut {' '.join(args)} failed in {project} ({child.returncode}) {tail}")
    return stdout or ""


#: A mutant's test process above this resident size is a runaway (an endless loop that grows a
#: list: seen with Cubirds' ``_draw_hidden`` mutants, 8 GB within minutes); a clean run takes
#: under 0.7 GB.
RUNAWAY_BYTES = 4 * 2**30


def stop_runaway_mutants(parent: int, stop: threading.Event) -> None:
    """Send SIGXCPU, the signal of mutmut's own CPU-time limit (recorded as a timeout), to any
    child of ``parent`` that grows past :data:`RUNAWAY_BYTES` before that limit comes: on a
    shared machine a runaway would otherwise exhaust the memory first."""
    while not stop.wait(2.0):
        for status in Path("/proc").glob("[0-9]*/status"):
            try:
                fields = dict(
                    line.split(":", 1) for line in status.read_text().splitlines() if ":" in line
                )
                if int(fields["PPid"]) != parent or "VmRSS" not in fields:
                    continue
                if int(fields["VmRSS"].split()[0]) * 1024 > RUNAWAY_BYTES:
                    os.kill(int(status.parent.name), signal.SIGXCPU)
                    print(f"   stopped a runaway mutant process ({fields['Name'].strip()})")
            except (OSError, ValueError, KeyError):
                continue  # the process ended meanwhile, or is not ours to read


def results(project: Path) -> dict[str, str]:
    """Mutant name -> status, as mutmut recorded them."""
    found = {}
    for line in mutmut(project, "results", "--all", "true", capture=True).splitlines():
        match = RESULT_LINE.match(line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


# Run in a plain scratch project: which functions of the engine file run during imports.
IMPORT_PROBE = """
import importlib, os, sys
targets, engine = set(sys.argv[1].split(os.pathsep)), sys.argv[2]
seen = set()
def record(frame, event, arg):
    code = frame.f_code
    if event == "call" and os.path.realpath(code.co_filename) in targets:
        seen.add(getattr(code, "co_qualname", code.co_name))
sys.setprofile(record)
import cardzoo.envs
importlib.import_module(f"cardzoo.envs.{engine}.game")
cardzoo.envs.games()
try:
    import cardzoo.agents
except ImportError:
    pass
sys.setprofile(None)
print("\\n".join(sorted(seen)))
"""


def import_time_functions(project: Path, engine: str) -> set[str]:
    """Qualified names of the engine's functions that run while the package is imported."""
    config = tomllib.loads((project / "pyproject.toml").read_text())["tool"]["mutmut"]
    target = os.pathsep.join(os.path.realpath(project / path) for path in config["only_mutate"])
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_PROBE, target, engine],
        cwd=project,
        text=True,
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"importing the scratch copy of {engine} failed:\n{done.stderr[-2000:]}")
    return set(done.stdout.split())


def function_of(mutant: str) -> str:
    """``pkg.mod.xǁStateǁview__mutmut_2`` -> ``State.view``; ``pkg.mod.x_f__mutmut_1`` -> ``f``."""
    name = mutant.rsplit(".", 1)[1].rsplit("__mutmut_", 1)[0]
    if name.startswith("x\u01c1"):
        return ".".join(name[2:].split("\u01c1"))
    return name[2:]


def fresh_pytest(project: Path, mutant: str, random_games: int, timeout: float) -> str:
    """Run the engine's test selection in a new process with ``mutant`` on from the start."""
    config = tomllib.loads((project / "pyproject.toml").read_text())["tool"]["mutmut"]
    selection = config["pytest_add_cli_args_test_selection"]
    env = dict(os.environ, MUTANT_UNDER_TEST=mutant)
    if random_games:
        env["CARDZOO_RANDOM_GAMES"] = str(random_games)
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *selection]
    try:
        done = subprocess.run(
            command,
            cwd=project / "mutants",
            env=env,
            text=True,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return "timeout"
    if done.returncode == 0:
        return "survived"
    if done.returncode in (1, 2, 3):  # failed tests, or an import the mutant broke
        return "killed"
    raise SystemExit(
        f"pytest could not run for {mutant} ({done.returncode}): {done.stdout[-2000:]}"
    )


def import_time_pass(
    project: Path, engine: str, status: dict[str, str], random_games: int
) -> dict[str, str]:
    """Re-test, each in a fresh process, the survivors whose function runs at import time.

    Returns their new statuses, also saved in ``import_time.json`` for ``--report-only``.
    """
    at_import = import_time_functions(project, engine)
    suspects = [m for m, v in status.items() if v == "survived" and function_of(m) in at_import]
    stats = json.loads((project / "mutants" / "mutmut-stats.json").read_text())
    timeout = 5 * sum(stats["duration_by_test"].values()) + 60
    if suspects:
        # the selection must pass with no mutant on, and fail when every mutated function raises
        if fresh_pytest(project, "", random_games, timeout) != "survived":
            raise SystemExit("the tests fail in a fresh pytest process with no mutant on")
        if fresh_pytest(project, "fail", random_games, timeout) != "killed":
            raise SystemExit("a fresh pytest process does not import the mutated copy")
    found = {}
    for i, mutant in enumerate(suspects, 1):
        found[mutant] = fresh_pytest(project, mutant, random_games, timeout)
        print(f"   import-time mutant {i}/{len(suspects)}: {mutant} {found[mutant]}", flush=True)
    (project / "import_time.json").write_text(json.dumps(found, indent=1, ensure_ascii=False))
    return found


def sample_unchecked(project: Path, status: dict[str, str], size: int, seed: int) -> list[str]:
    """Draw ``size`` of the mutants not tested yet (uniformly, seeded) and record the draw in
    ``sample.json``: the tested ones are one stratum, known exactly; the sample stands for the
    rest (see :func:`estimate`). A project that already holds a sample gets it extended by
    ``size`` more from the same untested rest (drawing on without replacement keeps it a uniform
    sample of that rest)."""
    unchecked = sorted(m for m, v in status.items() if v == "not checked")
    saved = project / "sample.json"
    record = {"seed": seed, "unchecked": len(unchecked), "sample": []}
    if saved.exists():
        record = json.loads(saved.read_text())
        seed = record["seed"] + len(record["sample"])  # a new stream for each extension
    chosen = sorted(random.Random(seed).sample(unchecked, min(size, len(unchecked))))
    record["sample"] = sorted({*record["sample"], *chosen})
    saved.write_text(json.dumps(record, indent=1, ensure_ascii=False))
    print(f"   {len(chosen)} untested mutants drawn (seed {seed})", flush=True)
    return chosen


def estimate(engine: str, status: dict[str, str], record: dict) -> str:
    """The score of a run completed by a sample: mutants tested before the sample count as they
    are; the sample's kill rate stands for the ``record["unchecked"]`` mutants it was drawn from.
    The 95% interval is the normal one with the finite-population correction (the sample is drawn
    without replacement from a known number)."""
    sample = set(record["sample"])
    rest = record["unchecked"]
    before = {m: v for m, v in status.items() if m not in sample and v != "not checked"}
    drawn = [status[m] for m in sample]
    total = len(before) + rest
    killed_before = sum(v in KILLED for v in before.values())
    n = len(drawn)
    killed_drawn = sum(v in KILLED for v in drawn)
    p = killed_drawn / n if n else 0.0
    fpc = (rest - n) / (rest - 1) if rest > 1 else 0.0
    half = 1.96 * math.sqrt(p * (1 - p) / n * fpc) if n else 0.0
    share = rest / total
    score = (killed_before + p * rest) / total
    low, high = score - half * share, score + half * share
    return (
        f"{engine}: estimated score {100 * score:.1f}% [95% interval {100 * low:.1f}, "
        f"{100 * high:.1f}] ({total} mutants: {len(before)} tested in full, {killed_before} of "
        f"them killed; a random sample of {n} of the other {rest}, {killed_drawn} killed)"
    )


def summarize(engine: str, status: dict[str, str]) -> str:
    counts: dict[str, int] = {}
    for value in status.values():
        counts[value] = counts.get(value, 0) + 1
    killed = sum(counts.get(k, 0) for k in KILLED)
    total = len(status)
    score = 100.0 * killed / total if total else 0.0
    details = ", ".join(f"{n} {name}" for name, n in sorted(counts.items()))
    return f"{engine}: score {score:.1f}% ({killed} of {total} mutants killed; {details})"


# Run in the scratch project: the diff of each mutant named on stdin ("name<TAB>status" lines).
DIFFS = """
import sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
for line in sys.stdin.read().splitlines():
    name, status = line.split("\\t")
    print(f"# {name}: {status}")
    print(get_diff_for_mutant(name).rstrip())
    print()
"""


def write_survivors(project: Path, status: dict[str, str]) -> Path:
    """Every mutant that no test killed, with its diff, in ``survivors.txt``."""
    out = project / "survivors.txt"
    listed = "".join(f"{m}\t{v}\n" for m, v in status.items() if v not in KILLED)
    done = subprocess.run(
        [sys.executable, "-c", DIFFS],
        cwd=project,
        input=listed,
        text=True,
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"could not print the surviving mutants:\n{done.stderr[-2000:]}")
    out.write_text(done.stdout)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("engine", nargs="*", help=f"default: all ({', '.join(engines())})")
    parser.add_argument("--rev", help="mutate this git revision instead of the working tree")
    parser.add_argument("--max-children", type=int, default=1, help="parallel mutants (default 1)")
    parser.add_argument(
        "--random-games",
        type=int,
        default=30,
        help="games per case in the conformance random-play test (default 30; the suite plays 300)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the last run in .mutation/<engine> (mutmut skips mutants already tested)",
    )
    parser.add_argument(
        "--report-only", action="store_true", help="summarize the last run, do not run again"
    )
    parser.add_argument(
        "--sample",
        type=int,
        default=0,
        metavar="N",
        help="test only N mutants drawn at random from those not tested yet, and estimate the "
        "score with a 95%% interval (with --resume: the untested rest of an unfinished run, or "
        "more of a sample drawn before)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the --sample draw")
    parser.add_argument(
        "--modules",
        nargs="+",
        metavar="FILE",
        help="engine modules to mutate, e.g. game.py (default: every module but __init__.py, "
        "data.py and render.py)",
    )
    args = parser.parse_args(argv)
    known = engines()
    chosen = args.engine or known
    unknown = [e for e in chosen if e not in known]
    if unknown:
        parser.error(f"unknown engine(s) {', '.join(unknown)}; found: {', '.join(known)}")
    lines = []
    for engine in chosen:
        project = WORK / engine
        if (args.report_only or args.resume) and not (project / "mutants").is_dir():
            parser.error(f"no previous run for {engine} in {project}")
        if not args.report_only:
            if not args.resume:
                project = build_project(engine, args.rev, args.modules)
            print(f"== {engine}: mutmut run in {project.relative_to(ROOT)}", flush=True)
            names: list[str] = []
            if args.sample:
                if not (project / "mutants").is_dir():
                    # Generate the mutants and the test stats, test none: mutmut does both, then
                    # stops on a filter that matches no mutant (an error we expect).
                    try:
                        mutmut(project, "run", f"cardzoo.envs.{engine}.game.x_none__mutmut_0")
                    except SystemExit:
                        if not (project / "mutants" / "mutmut-stats.json").is_file():
                            raise
                names = sample_unchecked(project, results(project), args.sample, args.seed)
            mutmut(
                project,
                "run",
                "--max-children",
                str(args.max_children),
                *names,
                random_games=args.random_games,
            )
        status = results(project)
        if not args.report_only:
            import_time_pass(project, engine, status, args.random_games)
        saved = project / "import_time.json"
        if saved.exists():
            status.update(json.loads(saved.read_text()))
        survivors = write_survivors(project, status)
        drawn = project / "sample.json"
        if drawn.exists():
            summary = estimate(engine, status, json.loads(drawn.read_text()))
        else:
            summary = summarize(engine, status)
        lines.append(f"{summary}; survivors: {survivors.relative_to(ROOT)}")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
