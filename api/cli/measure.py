"""Measuring: eval (retrieval and extraction quality on data sets, the evidence judge on
labelled pairs) and bench (the benchmarks of a source checkout)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agent_memory.api.cli.common import EXIT_OK, Subcommands, add_command, emit, load_config
from agent_memory.core.errors import InvalidArgument


def cmd_eval(args: argparse.Namespace) -> int:
    import tempfile

    if args.dataset == "judge":
        return cmd_eval_judge(args)
    from agent_memory.api.evaluation.retrieval import run, summary

    if args.dataset == "personal":
        return _eval_personal(args)
    datasets = ("locomo", "longmemeval") if args.dataset == "all" else (args.dataset,)
    granularities = ("turn", "session") if args.granularity == "both" else (args.granularity,)
    config = load_config(args)
    if not Path(args.data).is_dir():
        raise InvalidArgument(
            f"--data {args.data} is not a folder (it names the folder with the data set files)",
            field="data",
        )
    with tempfile.TemporaryDirectory(prefix="agent-memory-eval-") as scratch:
        try:
            report = run(
                data_dir=Path(args.data),
                store_dir=Path(args.work_dir or scratch),
                config=config,
                datasets=datasets,
                granularities=granularities,
                do_calibrate=args.calibrate,
                progress=not args.json,
            )
        except FileNotFoundError as exc:
            raise InvalidArgument(
                f"cannot read {exc.filename}: {exc.strerror} (--data names the folder with the "
                "data set files)",
                field="data",
            ) from None
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2, default=str))
    if args.calibrate and not args.json:
        sweep = report["calibration"]["sweep"]
        print("dense_floor  lexical_floor  precision  recall  f1")
        for row in sorted(sweep, key=lambda r: -r["f1"])[:15]:
            print(
                f"{row['dense_floor']:>11}  {row['lexical_floor']:>13}  "
                f"{row['precision']:>9}  {row['recall']:>6}  {row['f1']}"
            )
    emit(args, report, lambda: summary(report))
    return EXIT_OK


def _eval_personal(args: argparse.Namespace) -> int:
    """The personal-memory evaluation (api.evaluation.personal); --data is the file or its
    folder."""
    from agent_memory.api.evaluation import personal, personas

    data = Path(args.data)
    if not personas.data_file(data).is_file():
        raise InvalidArgument(
            f"--data {args.data}: no {personas.FILE_NAME} there (it names the file or "
            "the folder holding it)",
            field="data",
        )
    report = personal.run(
        data=data,
        config=load_config(args),
        store_dir=Path(args.work_dir) if args.work_dir else None,
        progress=not args.json,
        calibrate=args.calibrate,
    )
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2, default=str))
    emit(args, report, lambda: personal.summary(report))
    return EXIT_OK


def cmd_eval_judge(args: argparse.Namespace) -> int:
    """The evidence judge on labelled (quote, content) pairs (api/evaluation/judge.py)."""
    from agent_memory.api.evaluation import judge

    report = judge.run(load_config(args), Path(args.data))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2, default=str))
    emit(args, report, lambda: judge.summary(report))
    return EXIT_OK


def add_eval(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "eval",
        cmd_eval,
        "Measure retrieval on LoCoMo and LongMemEval-S (recall@k, empty answers, latency), or "
        "on everyday personal chats (--dataset personal: extracted and turn records), or the "
        "evidence judge on labelled quote/content pairs (--dataset judge).",
        "agent-memory eval --data DATA --dataset locomo --out eval.json\n"
        "agent-memory eval --data DATA --dataset locomo --calibrate\n"
        "agent-memory eval --dataset personal --data DATA/personal-memory-dev.json\n"
        "agent-memory eval --dataset judge --data DATA/judge-pairs-dev.jsonl\n"
        "# DATA: the data folder (see its README)",
    )
    p.add_argument(
        "--data",
        required=True,
        help="the data folder (see its README), with the data set files (personal: the file "
        "itself, or its folder, or a LongMemEval .json.gz, each question a user holding only "
        "its evidence sessions; judge: a .jsonl file or a folder holding it)",
    )
    p.add_argument(
        "--dataset",
        default="all",
        choices=["locomo", "longmemeval", "all", "personal", "judge"],
        help="'all' is LoCoMo and LongMemEval",
    )
    p.add_argument(
        "--granularity",
        default="turn",
        choices=["turn", "session", "both"],
        help="LongMemEval: a record per turn or per session",
    )
    p.add_argument(
        "--calibrate",
        action="store_true",
        help="sweep the gate floors (LoCoMo: the floors; personal: the small-store dense floor)",
    )
    p.add_argument("--work-dir", help="keep the evaluation stores here (default: temporary)")
    p.add_argument("--out", help="write the full JSON report here")


BENCHMARKS = ("search", "write", "worker", "index")


def cmd_bench(args: argparse.Namespace) -> int:
    """Run benchmarks/bench_<name>.py of this source checkout in a process of its own (it
    measures that process's RSS and cold starts), with this interpreter."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    script = root / "benchmarks" / f"bench_{args.name}.py"
    if not script.is_file():
        raise InvalidArgument(
            f"{script} not found: the benchmarks ship with a source checkout "
            "(scripts/install.sh installs it editable), not with the package",
            field="name",
        )
    # argparse drops a leading "--" itself on some Python versions, not on others.
    passed = args.args[1:] if args.args[:1] == ["--"] else args.args
    # The caller's working directory, so a relative --out means what they typed; the scripts
    # find the repository from their own path.
    return subprocess.run([sys.executable, str(script), *passed]).returncode


def add_bench(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "bench",
        cmd_bench,
        "Run a benchmark of benchmarks/ (search, write, worker or index): the rest of the line "
        "is its own arguments. Each builds its own stores (--store and --config are not used) "
        "and writes its report under benchmarks/results/ unless given --out.",
        "agent-memory bench search --sizes 1000,10000 --queries 50\n"
        "agent-memory bench write --help",
        json_flag=False,
    )
    p.add_argument("name", choices=BENCHMARKS, help="which benchmark")
    p.add_argument(
        "args",
        nargs=argparse.REMAINDER,
        help="its arguments (agent-memory bench NAME --help lists them)",
    )


COMMANDS = {"eval": add_eval, "bench": add_bench}
