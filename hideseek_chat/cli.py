"""The ``hideseek-chat`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from hideseek_chat.config import Config, ConfigError
from hideseek_chat.rules.ruleset import (
    CardKind,
    Category,
    RulesetError,
    Size,
    load_ruleset,
    load_ruleset_file,
    ruleset_paths,
)


def _describe(name: str, config: Config) -> str:
    ruleset = load_ruleset(name, config.rulesets_dirs)
    lines = [f"{ruleset.name}: {ruleset.title} ({ruleset.units})", f"  file: {ruleset.path}"]
    for size in Size:
        rules = ruleset.sizes[size]
        counts = ", ".join(
            f"{category.value} {len(ruleset.questions_in(category, size))}" for category in Category
        )
        lines.append(
            f"  {size.value}: hiding {rules.hiding_period_min:g} min,"
            f" zone {rules.zone_radius_m:.0f} m; questions: {counts}"
        )
    kinds = ", ".join(
        f"{sum(c.count for c in ruleset.cards if c.kind == kind)} {kind.value}" for kind in CardKind
    )
    lines.append(f"  deck: {ruleset.deck_size()} cards ({kinds}); hand limit {ruleset.hand_limit}")
    return "\n".join(lines)


def _rulesets(args: argparse.Namespace, config: Config) -> int:
    if args.check:
        for path in args.check:
            ruleset = load_ruleset_file(path)
            print(
                f"{path}: ok ({ruleset.name}, {len(ruleset.questions)} questions, "
                f"{ruleset.deck_size()} cards)"
            )
        return 0
    names = [args.name] if args.name else sorted(ruleset_paths(config.rulesets_dirs))
    print("\n\n".join(_describe(name, config) for name in names))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hideseek-chat", description="A chat referee for Hide+Seek, the transit game."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    rulesets = commands.add_parser("rulesets", help="list the rulesets, or check ruleset files")
    rulesets.add_argument("name", nargs="?", help="show one ruleset")
    rulesets.add_argument("--check", nargs="+", metavar="FILE", help="validate ruleset files")
    rulesets.set_defaults(handler=_rulesets)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        config = Config.from_env()
        return int(args.handler(args, config))
    except (ConfigError, RulesetError) as err:
        print(f"hideseek-chat: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
